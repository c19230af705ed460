import type { JsonAnswer } from '../lib/contract-types';
import { rawResponse, type AnyRequest, type OperationResponse } from '../lib/http/operations';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import { callerOf, requireTenant } from '../lib/tenancy';
import { actorOf } from '../activity/recorder';
import { BRAND_HEADER } from '../brands/acting-brand';
import { AppError } from '../lib/errors';
import type { Submitter } from './job-control';
import type { ResultsDownload, ResultsFormat } from './results';

/** Where an answer's headers are added (the operation's response). */
interface HeaderSink {
  append(name: string, value: string): unknown;
}

/**
 * The brands an agent submits for, whose job bounds apply beside its client's (docs/security.md, "Jobs per tenant"):
 * the one its X-Brand-Id names (one of its token's brands, 403 otherwise), else every brand of its token, as the
 * agent's request limits count it (leaving the header out never escapes a brand's bounds). Nobody else's jobs are a
 * brand's.
 */
export function actingBrandIds(req: AnyRequest): number[] {
  const caller = callerOf(req);
  if (caller.kind !== 'agent') return [];
  const named = req.get(BRAND_HEADER);
  if (named === undefined) return [...caller.brandIds];
  const brandId = Number(named);
  if (!caller.brandIds.includes(brandId)) throw AppError.forbidden(`This access token does not act for brand ${named}`);
  return [brandId];
}

/** Who submits a job: the tenant it runs for and the caller (a super_admin names an existing client). */
export function submitterOf(req: AnyRequest, res?: HeaderSink): Submitter {
  const caller = callerOf(req);
  return {
    clientId: requireTenant(req),
    isSuperAdmin: caller.role === 'super_admin',
    userId: caller.userId,
    actor: actorOf(caller),
    idempotency: req.idempotency,
    brandIds: actingBrandIds(req),
    // Appended: an agent's own request limits (src/agents/request-limits.ts) may have set fields already.
    showQuota: res && ((fields) => Object.entries(fields).forEach(([name, value]) => res.append(name, value))),
  };
}

/**
 * The submitter of a job submission whose webhook_url (if any) the outbound policy admits (422 otherwise): what
 * every job type's submit operation checks first. With `res`, the answer gets the RateLimit fields of the tenants'
 * job bounds.
 */
export function submissionOf(
  req: AnyRequest & { body: { webhook_url?: string } },
  outbound: OutboundPolicy,
  res?: HeaderSink,
): Submitter {
  assertSubmittedUrl(req.body.webhook_url, 'webhook_url', outbound);
  return submitterOf(req, res);
}

export const formatOf = (query: { format?: ResultsFormat }): ResultsFormat => query.format ?? 'json';

/** The operations that answer a job's results. */
type ResultsOperation = 'getJobResults' | 'getResearchResults';

/**
 * A job's results: a page as the JSON the contract declares, or the whole set as a download (CSV or JSON
 * lines), written as the connection takes it.
 */
export async function sendResults<Op extends ResultsOperation>(
  res: OperationResponse<Op>,
  results: { json: JsonAnswer<Op, 200> } | { download: ResultsDownload },
) {
  if ('json' in results) return void res.json(results.json);
  const { download } = results;
  const stream = rawResponse<ResultsOperation>(res); // CSV or JSON lines, as the contract declares them besides JSON
  stream.status(200);
  stream.setHeader('Content-Type', download.contentType);
  stream.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
  for await (const chunk of download.chunks) {
    if (stream.destroyed) break;
    if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
  }
  stream.end();
}

import type { JsonAnswer } from '../lib/contract-types';
import { rawResponse, type AnyRequest, type OperationResponse } from '../lib/http/operations';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import { callerOf, requireTenant } from '../lib/tenancy';
import { actorOf } from '../activity/recorder';
import type { Submitter } from './job-control';
import type { ResultsDownload, ResultsFormat } from './results';

/** Who submits a job: the tenant it runs for and the caller (a super_admin names an existing client). */
function submitterOf(req: AnyRequest): Submitter {
  const caller = callerOf(req);
  return {
    clientId: requireTenant(req),
    isSuperAdmin: caller.role === 'super_admin',
    userId: caller.userId,
    actor: actorOf(caller),
    idempotency: req.idempotency,
  };
}

/**
 * The submitter of a job submission whose webhook_url (if any) the outbound policy admits (422 otherwise): what
 * every job type's submit operation checks first.
 */
export function submissionOf(
  req: AnyRequest & { body: { webhook_url?: string } },
  outbound: OutboundPolicy,
): Submitter {
  assertSubmittedUrl(req.body.webhook_url, 'webhook_url', outbound);
  return submitterOf(req);
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

import type { Request, Response } from 'express';
import { callerOf, requireTenant } from '../lib/tenancy';
import type { Submitter } from './job-control';
import type { ResultsDownload, ResultsFormat } from './results';

/** Who submits a job: the tenant it runs for and the caller (a super_admin names an existing client). */
export function submitterOf(req: Request): Submitter {
  const caller = callerOf(req);
  return { clientId: requireTenant(req), isSuperAdmin: caller.role === 'super_admin', userId: caller.userId };
}

export const formatOf = (req: Request) => (req.query.format ?? 'json') as ResultsFormat;

/** A job's results: a page as JSON, or the whole set as a download, written as the connection takes it. */
export async function sendResults(res: Response, results: { json: unknown } | { download: ResultsDownload }) {
  if ('json' in results) return void res.json(results.json);
  const { download } = results;
  res.status(200);
  res.setHeader('Content-Type', download.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
  for await (const chunk of download.chunks) {
    if (res.destroyed) break;
    if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
  }
  res.end();
}

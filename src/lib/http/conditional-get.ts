import type { Response } from 'express';
import type { AnyRequest } from './operations';

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * Whether a GET's caller already has the answer about to be sent, judged by the validators set on `res` (ETag,
 * Last-Modified), as RFC 9110 §13.1 orders them: If-None-Match decides when present (compared weakly, any tag of
 * a list, `*` for any); otherwise If-Modified-Since, at the one-second precision of an HTTP date. Express's
 * `req.fresh` cannot stand in: it answers false whenever the request says `Cache-Control: no-cache`, which
 * fetch() adds to every request carrying a validator, so those callers would never get a 304.
 */
export function notModified(req: AnyRequest, res: Pick<Response, 'get'>): boolean {
  const ifNoneMatch = req.get('if-none-match');
  if (ifNoneMatch) {
    const tags = ifNoneMatch.split(',').map(opaque);
    const etag = res.get('ETag');
    return tags.includes('*') || (etag !== undefined && tags.includes(opaque(etag)));
  }
  const lastModified = Date.parse(res.get('Last-Modified') ?? '');
  const since = Date.parse(req.get('if-modified-since') ?? '');
  return !Number.isNaN(lastModified) && !Number.isNaN(since) && lastModified <= since;
}

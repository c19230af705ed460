import type { Request, Response } from 'express';
import { etagOf, type CachedResponse, type ContentCache } from './content-cache';

/** Browsers and CDNs may reuse a public response for 30 s, then revalidate it with its ETag. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=60';

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/** If-None-Match against an ETag with the weak comparison HTTP uses for GET (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((t) => opaque(t) === wanted);
}

/** A stable cache key for a read: the operation, its path value and its query in sorted order. */
export function readKey(op: string, req: Request, pathValue = ''): string {
  const query = Object.keys(req.query)
    .sort()
    .map((k) => `${k}=${encodeURIComponent(String(req.query[k]))}`)
    .join('&');
  return `${op}:${encodeURIComponent(pathValue)}?${query}`;
}

/**
 * Serves public reads through the Redis cache with ETag, Cache-Control and 304. The response body
 * is cached as JSON text, so a hit costs two Redis GETs and no serialisation.
 */
export function createPublicResponder(cache: ContentCache, opts: { validateResponses: boolean }) {
  return {
    /** The cached response for `key`, or `load()`'s value serialised and cached; null when load finds nothing. */
    async cached(clientId: string, key: string, load: () => Promise<unknown | null>): Promise<CachedResponse | null> {
      const { version, hit } = await cache.get(clientId, key);
      if (hit) return hit;
      const value = await load();
      if (value === null) return null;
      const body = JSON.stringify(value);
      const entry = { etag: etagOf(body), body };
      await cache.set(clientId, version, key, entry);
      return entry;
    },

    /** Sends `body` (default: the entry's) under the entry's ETag, or 304 when the caller already has it. */
    send(req: Request, res: Response, entry: CachedResponse, body = entry.body): void {
      res.set({ ETag: entry.etag, 'Cache-Control': PUBLIC_CACHE_CONTROL, Vary: 'X-Content-Domain' });
      if (etagMatches(req.get('if-none-match'), entry.etag)) {
        res.status(304).end();
        return;
      }
      // Under test every response goes through res.json, so the contract checks cached bodies too.
      if (opts.validateResponses) res.json(JSON.parse(body));
      else res.type('application/json').send(body);
    },
  };
}

export type PublicResponder = ReturnType<typeof createPublicResponder>;

/**
 * The cached post body without view_count, and the live count put in front: `{"view_count":N,...}`.
 * The ETag stays that of the cached body (a weak validator: a new count is not a new version).
 */
export function withViewCount(body: string, views: number): string {
  return `{"view_count":${views},${body.slice(1)}`;
}

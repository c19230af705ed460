import type { Response } from 'express';
import type { AnyRequest, OperationResponse } from '../lib/http/operations';
import { notModified } from '../lib/http/conditional-get';
import { singleFlight } from '../lib/coalesced-reads';
import { etagOf, type CachedResponse, type ContentCache } from './content-cache';

/** The public reads a site makes, answered from the cache. */
export type PublicReadOperation =
  | 'listPublicAuthors'
  | 'listPublicPosts'
  | 'getPublicPost'
  | 'listPublicPages'
  | 'getPublicPage'
  | 'listPublicCategories'
  | 'listPublicTags';

/** Browsers and CDNs may reuse a public response for 30 s, then revalidate it with its ETag. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=60';

/**
 * The cache key of a public read: its URL as sent (path and query). Only responses to requests the
 * contract accepted are cached, so a later request with the same URL is one the contract accepts too;
 * that is what lets the fast path (public-fast-path.ts) answer hits before validation.
 */
export const readKey = (req: AnyRequest): string => req.originalUrl;

/**
 * Serves public reads through the Redis cache with ETag, Cache-Control and 304. The response body
 * is cached as JSON bytes, so a hit costs two Redis GETs and no serialisation.
 */
export function createPublicResponder(cache: ContentCache, opts: { validateResponses: boolean }) {
  const loads = singleFlight<CachedResponse | null>();
  return {
    /**
     * The cached response for `key`, or `load()`'s value serialised and cached; null when load finds nothing. Misses
     * of one entry under one version of the client's content share one load (a cold process, an expired entry under
     * a site's traffic); a write bumps the version, so no read after it joins a load that may predate it. With Redis
     * unusable (no version) every read loads.
     */
    async cached(clientId: string, key: string, load: () => Promise<unknown | null>): Promise<CachedResponse | null> {
      const { version, hit } = await cache.get(clientId, key);
      if (hit) return hit;
      const fill = async () => {
        const value = await load();
        if (value === null) return null;
        const body = Buffer.from(JSON.stringify(value));
        const entry = { etag: etagOf(body), body };
        await cache.set(clientId, version, key, entry);
        return entry;
      };
      return version === null ? fill() : loads(`${clientId}\0${version}\0${key}`, fill);
    },

    /**
     * Sends `body` (default: the entry's) under the entry's ETag, or 304 when the caller already has it. The entry
     * is the JSON of an answer its operation's handler produced (and typed), so it is sent as the bytes it is.
     */
    send(
      req: AnyRequest,
      answer: Response | OperationResponse<PublicReadOperation, number>,
      entry: CachedResponse,
      body = entry.body,
    ): void {
      const res = answer as Response;
      res.set({ ETag: entry.etag, 'Cache-Control': PUBLIC_CACHE_CONTROL, Vary: 'X-Content-Domain' });
      if (notModified(req, res)) {
        res.status(304).end();
        return;
      }
      // Under test every response goes through res.json, so the contract checks cached bodies too.
      if (opts.validateResponses) res.json(JSON.parse(body.toString()));
      else res.type('application/json').send(body);
    },
  };
}

export type PublicResponder = ReturnType<typeof createPublicResponder>;

/**
 * The cached post body without view_count, and the live count put in front: `{"view_count":N,...}`.
 * The ETag stays that of the cached body (a weak validator: a new count is not a new version).
 */
export function withViewCount(body: Buffer, views: number): Buffer {
  return Buffer.concat([Buffer.from(`{"view_count":${views},`), body.subarray(1)]);
}

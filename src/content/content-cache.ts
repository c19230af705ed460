import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';

/** A public response as it is cached and served: its JSON text and a weak ETag. */
export interface CachedResponse {
  etag: string;
  body: string;
}

export const CACHE_TTL_SECONDS = 60;
const WARN_EVERY_MS = 10_000;

export const etagOf = (body: string): string => `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;

/**
 * The public-read cache in Redis. Every client has a namespace `content:<client_id>:` with a version
 * counter; entries are keyed by the version they were computed under, so any change to a client's
 * content invalidates all of its entries with one INCR (old entries simply expire). The cache is
 * best-effort: when Redis fails, reads fall through to MongoDB and the failure is logged (at most
 * once per 10 s, so an outage does not flood the log).
 */
export function createContentCache(redis: Redis, logger: Logger, ttlSeconds = CACHE_TTL_SECONDS) {
  const versionKey = (clientId: string) => `content:${clientId}:v`;
  const entryKey = (clientId: string, version: string, key: string) => `content:${clientId}:e:${version}:${key}`;
  let lastWarning = 0;
  const warn = (err: unknown, op: string) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn({ err: (err as Error)?.message ?? String(err), op }, 'content cache unavailable; serving public content from MongoDB');
  };

  async function currentVersion(clientId: string): Promise<string> {
    const version = await redis.get(versionKey(clientId));
    if (version !== null) return version;
    // A missing counter (first use, or evicted) starts at the clock, never at a value old entries may carry.
    await redis.set(versionKey(clientId), String(Date.now()), 'NX');
    return (await redis.get(versionKey(clientId))) ?? '0';
  }

  return {
    /** The cached response for `key` and the version it belongs under; version null means Redis is unusable now. */
    async get(clientId: string, key: string): Promise<{ version: string | null; hit: CachedResponse | null }> {
      try {
        const version = await currentVersion(clientId);
        const raw = await redis.get(entryKey(clientId, version, key));
        if (raw === null) return { version, hit: null };
        const nl = raw.indexOf('\n');
        return { version, hit: { etag: raw.slice(0, nl), body: raw.slice(nl + 1) } };
      } catch (err) {
        warn(err, 'get');
        return { version: null, hit: null };
      }
    },

    async set(clientId: string, version: string | null, key: string, entry: CachedResponse): Promise<void> {
      if (version === null) return;
      try {
        await redis.set(entryKey(clientId, version, key), `${entry.etag}\n${entry.body}`, 'EX', ttlSeconds);
      } catch (err) {
        warn(err, 'set');
      }
    },

    /** Invalidates every cached public response of a client (one INCR). */
    async invalidate(clientId: string): Promise<void> {
      try {
        await redis.incr(versionKey(clientId));
      } catch (err) {
        logger.error({ err: (err as Error)?.message, client_id: clientId }, `content cache not invalidated; stale public reads possible for up to ${ttlSeconds} s`);
      }
    },
  };
}

export type ContentCache = ReturnType<typeof createContentCache>;

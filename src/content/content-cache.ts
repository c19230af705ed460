import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import { cacheLookups } from '../lib/metrics';

/** A public response as it is cached and served: its JSON bytes and a weak ETag. */
export interface CachedResponse {
  etag: string;
  body: Buffer;
}

export const CACHE_TTL_SECONDS = 60;
const WARN_EVERY_MS = 10_000;

export const etagOf = (body: Buffer): string =>
  `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;

// One round trip for a read: the client's version (started at ARGV[3] when missing), the entry under
// it and, on a hit, the increment of an existing counter ARGV[4] (-1 when there is none or none given).
// Keys carry the client id as a hash tag, so a client's keys share one slot on a Redis cluster.
const GET_ENTRY = `local version = redis.call('GET', KEYS[1])
if not version then
  version = ARGV[3]
  redis.call('SET', KEYS[1], version)
end
local entry = redis.call('GET', ARGV[1] .. version .. ARGV[2])
local counted = -1
if entry and ARGV[4] ~= '' and redis.call('EXISTS', ARGV[4]) == 1 then
  redis.call('EXPIRE', ARGV[4], ARGV[5])
  counted = redis.call('INCR', ARGV[4])
end
return {version, entry, counted}`;

/** A counter to increment when the read is a hit (a post's live view counter). */
export interface HitCounter {
  key: string;
  ttlSeconds: number;
}

type CacheRedis = Redis & {
  contentCacheGetBuffer(
    versionKey: string,
    entryPrefix: string,
    entrySuffix: string,
    start: string,
    counter: string,
    ttl: number,
  ): Promise<[Buffer, Buffer | null, number]>;
};

/**
 * The public-read cache in Redis. Every client has a namespace `content:{<client_id>}:` with a version
 * counter; entries are keyed by the version they were computed under, so any change to a client's
 * content invalidates all of its entries with one INCR (old entries simply expire). The cache is
 * best-effort: when Redis fails, reads fall through to MongoDB and the failure is logged (at most
 * once per 10 s, so an outage does not flood the log).
 */
export function createContentCache(redis: Redis, logger: Logger, ttlSeconds = CACHE_TTL_SECONDS) {
  const r = redis as CacheRedis;
  if (!r.contentCacheGetBuffer) r.defineCommand('contentCacheGet', { numberOfKeys: 1, lua: GET_ENTRY });
  const keyPrefix = redis.options.keyPrefix ?? '';
  const versionKey = (clientId: string) => `content:{${clientId}}:v`;
  const entryPrefix = (clientId: string) => `content:{${clientId}}:e:`;
  const lookups = {
    hit: cacheLookups.labels('content', 'hit'),
    miss: cacheLookups.labels('content', 'miss'),
    bypass: cacheLookups.labels('content', 'bypass'),
  };
  let lastWarning = 0;
  const warn = (err: unknown, op: string) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn(
      { err: (err as Error)?.message ?? String(err), op },
      'content cache unavailable; serving public content from MongoDB',
    );
  };

  return {
    /**
     * The cached response for `key` and the version it belongs under (null when Redis is unusable
     * now); on a hit also `counted`, the new value of `counter` when that exists (else null).
     */
    async get(
      clientId: string,
      key: string,
      counter?: HitCounter,
    ): Promise<{ version: string | null; hit: CachedResponse | null; counted: number | null }> {
      try {
        // A missing version (first use, or evicted) starts at the clock, never at a value old entries may carry.
        // The entry comes as bytes: it goes to the socket as it came from Redis, never decoded and re-encoded.
        const [v, raw, counted] = await r.contentCacheGetBuffer(
          versionKey(clientId),
          keyPrefix + entryPrefix(clientId),
          `:${key}`,
          String(Date.now()),
          counter ? keyPrefix + counter.key : '',
          counter?.ttlSeconds ?? 0,
        );
        const version = v.toString();
        (raw ? lookups.hit : lookups.miss).inc();
        if (!raw) return { version, hit: null, counted: null };
        const nl = raw.indexOf(10);
        return {
          version,
          hit: { etag: raw.toString('latin1', 0, nl), body: raw.subarray(nl + 1) },
          counted: counted > 0 ? counted : null,
        };
      } catch (err) {
        lookups.bypass.inc();
        warn(err, 'get');
        return { version: null, hit: null, counted: null };
      }
    },

    async set(clientId: string, version: string | null, key: string, entry: CachedResponse): Promise<void> {
      if (version === null) return;
      try {
        await redis.set(
          `${entryPrefix(clientId)}${version}:${key}`,
          Buffer.concat([Buffer.from(`${entry.etag}\n`, 'latin1'), entry.body]),
          'EX',
          ttlSeconds,
        );
      } catch (err) {
        warn(err, 'set');
      }
    },

    /** Invalidates every cached public response of a client (one INCR). */
    async invalidate(clientId: string): Promise<void> {
      try {
        await redis.incr(versionKey(clientId));
      } catch (err) {
        logger.error(
          { err: (err as Error)?.message, client_id: clientId },
          `content cache not invalidated; stale public reads possible for up to ${ttlSeconds} s`,
        );
      }
    },
  };
}

export type ContentCache = ReturnType<typeof createContentCache>;

import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import type { HitCounter } from './content-cache';
import { PostModel } from './post.model';
import { createViewCounter } from './view-counter';

/**
 * Reads served from the cache reach MongoDB in one grouped $inc per post at most this often. Their counts come from
 * the live counter in Redis meanwhile, so this only sets how far the stored total trails (a stopping process writes
 * what it holds); under the soak's mix the background $incs were the largest holder of the document engine's
 * connections (docs/performance.md, "Load"): 5 s makes them one write per post per 5 s.
 */
const BACKGROUND_WRITE_MS = 5000;
/** How long a post's live counter stays in Redis after its last read. */
const COUNTER_TTL_SECONDS = 7 * 24 * 3600;

// Raise a counter to at least ARGV[1] (never lowers it: concurrent starts cannot move it back).
const RAISE_TO = `local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 1`;

type ViewRedis = Redis & {
  contentViewRaise(key: string, value: number, ttl: number): Promise<number>;
};

/**
 * Post view counts. MongoDB holds the exact total: every read becomes part of an atomic `$inc`
 * (grouped per post, see view-counter.ts). A read served from the cache gets its count from an atomic
 * Redis INCR of the post's live counter, in the same round trip as the cache read, and does not wait
 * for MongoDB, whose `$inc` follows in the background; other reads, and every read while Redis is
 * unusable, wait for the `$inc` and take its result. The live counter starts from MongoDB's total,
 * so a count shown in a response can trail the stored total by the reads in flight at that moment.
 */
export function createPostViews(deps: { redis: Redis; logger: Logger }) {
  const redis = deps.redis as ViewRedis;
  if (!redis.contentViewRaise) redis.defineCommand('contentViewRaise', { numberOfKeys: 1, lua: RAISE_TO });
  const durable = createViewCounter(
    async (key, by, wantTotal) => {
      const [clientId, slug] = key.split('\u0000');
      const filter = { client_id: clientId, slug, status: 'published' };
      if (!wantTotal) {
        await PostModel.updateOne(filter, { $inc: { view_count: by } }, { timestamps: false });
        return null;
      }
      const doc = await PostModel.findOneAndUpdate(
        filter,
        { $inc: { view_count: by } },
        { returnDocument: 'after', timestamps: false }, // (no projection: FerretDB's findAndModify does not take one)
      ).lean<{ view_count: number }>();
      return doc?.view_count ?? null;
    },
    (err, key) =>
      deps.logger.error({ err: (err as Error)?.message, post: key.replace('\u0000', '/') }, 'post views not stored'),
    BACKGROUND_WRITE_MS,
  );
  const liveKey = (clientId: string, slug: string) => `content:{${clientId}}:views:${slug}`;
  const durableKey = (clientId: string, slug: string) => `${clientId}\u0000${slug}`;

  return {
    /** The post's live counter, for a cache read that increments it on a hit (content-cache.ts). */
    liveCounter: (clientId: string, slug: string): HitCounter => ({
      key: liveKey(clientId, slug),
      ttlSeconds: COUNTER_TTL_SECONDS,
    }),

    /** A read already counted on the live counter: its $inc follows in the background. */
    counted(clientId: string, slug: string): void {
      durable.add(durableKey(clientId, slug));
    },

    /** Writes the background counts held now (the process is stopping). */
    close: () => durable.flushAll(),

    /** Counts one read, waiting for its $inc; the count including it, or null when no published post has this slug. */
    async count(clientId: string, slug: string): Promise<number | null> {
      const total = await durable.count(durableKey(clientId, slug));
      if (total !== null)
        await redis.contentViewRaise(liveKey(clientId, slug), total, COUNTER_TTL_SECONDS).catch(() => undefined);
      return total;
    },
  };
}

export type PostViews = ReturnType<typeof createPostViews>;

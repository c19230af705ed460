import { setTimeout as sleep } from 'node:timers/promises';
import type Redis from 'ioredis';
import { redisLease } from '../lib/lease';
import type { Logger } from '../lib/logger';

export interface Cached<T> {
  value: T;
  cached: boolean;
}

export interface CacheOptions<T> {
  refresh?: boolean;
  /** Whether an answer may be kept (a report whose source failed is not, so the next request asks again). */
  keep?: (value: T) => boolean;
}

export interface ReportCache {
  /**
   * The report under `key`: from Redis while it is fresher than `ttlSeconds`, else computed once and
   * stored. `refresh` recomputes (and stores) whatever is cached.
   */
  get<T>(key: string, ttlSeconds: number, compute: () => Promise<T>, opts?: CacheOptions<T>): Promise<Cached<T>>;
}

/**
 * Report cache in Redis with single flight: concurrent requests for a cold key compute it once.
 * Within a process they share one promise; across processes the first takes a short Redis lease
 * (lib/lease.ts) and the others wait for its answer to appear (or the lease to lapse, then compute).
 * A Redis failure never fails a report: it is computed directly.
 */
export function createReportCache(
  redis: Redis,
  logger: Logger,
  opts: { leaseMs?: number; pollMs?: number } = {},
): ReportCache {
  const leaseMs = opts.leaseMs ?? 30_000;
  const pollMs = opts.pollMs ?? 50;
  const inFlight = new Map<string, Promise<unknown>>();
  const dataKey = (key: string) => `report:${key}`;

  const read = async <T>(key: string): Promise<T | undefined> => {
    const text = await redis.get(dataKey(key));
    return text === null ? undefined : (JSON.parse(text) as T);
  };

  async function computeOnce<T>(
    key: string,
    ttlSeconds: number,
    compute: () => Promise<T>,
    o: CacheOptions<T>,
  ): Promise<Cached<T>> {
    let refresh = Boolean(o.refresh);
    const lease = redisLease(redis, `report-lease:${key}`, leaseMs);
    const deadline = Date.now() + leaseMs;
    for (;;) {
      if (!refresh) {
        const hit = await read<T>(key);
        if (hit !== undefined) return { value: hit, cached: true };
      }
      if (await lease.take()) {
        // The lease may be free because another process has just stored its answer and let go:
        // read once more under the lease before computing again.
        const stored = refresh ? undefined : await read<T>(key);
        if (stored === undefined) break;
        await lease.release();
        return { value: stored, cached: true };
      }
      // Another process computes it: wait for its answer rather than computing it again.
      if (Date.now() > deadline) break;
      await sleep(pollMs);
      refresh = false;
    }
    try {
      const value = await compute();
      if (o.keep && !o.keep(value)) return { value, cached: false };
      await redis.set(dataKey(key), JSON.stringify(value), 'EX', ttlSeconds).catch((err: Error) => {
        logger.warn({ err: err.message, key }, 'report cache unavailable; answer not stored');
      });
      return { value, cached: false };
    } finally {
      await lease.release();
    }
  }

  return {
    async get<T>(key: string, ttlSeconds: number, compute: () => Promise<T>, o: CacheOptions<T> = {}) {
      const flightKey = `${o.refresh ? 'refresh' : 'read'}:${key}`;
      const running = inFlight.get(flightKey) as Promise<Cached<T>> | undefined;
      if (running) return running;
      let computed = false;
      const once = () => {
        computed = true;
        return compute();
      };
      const flight = computeOnce(key, ttlSeconds, once, o)
        .catch(async (err) => {
          if (computed) throw err; // the report itself failed, not the cache
          logger.warn({ err: (err as Error).message, key }, 'report cache unavailable; computing directly');
          return { value: await compute(), cached: false };
        })
        .finally(() => inFlight.delete(flightKey));
      inFlight.set(flightKey, flight);
      return flight;
    },
  };
}

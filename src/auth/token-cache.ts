import type Redis from 'ioredis';
import { cacheLookups } from '../lib/metrics';

const EPOCH_KEY = 'auth:access-token-epoch';
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  epoch: string;
  expiresAt: number;
  cachedAt: number;
}

/**
 * An in-process cache of credential lookups (access tokens, sessions, triples) that can never serve a
 * revoked one: every change that takes access away (a token revoked, a logout, a user changed or removed,
 * a client deactivated or its secret rotated) bumps one Redis counter (the epoch) after its write, and every
 * lookup reads the counter first (one Redis round trip instead of document queries) and trusts only
 * entries made under the current one. So a revocation holds on every API process from the next request.
 * When Redis is unreachable nothing is cached and every lookup asks the database.
 */
export function createTokenCache<T>(
  redis: Redis,
  opts: {
    ttlMs?: number;
    /** Another cache's own counter (integration keys use one). */
    epochKey?: string;
    /** Its name in the metrics (lead_cache_lookups_total). */
    name?: string;
  } = {},
) {
  const ttlMs = opts.ttlMs ?? 30_000;
  const epochKey = opts.epochKey ?? EPOCH_KEY;
  const counted = {
    hit: cacheLookups.labels(opts.name ?? 'credentials', 'hit'),
    miss: cacheLookups.labels(opts.name ?? 'credentials', 'miss'),
    bypass: cacheLookups.labels(opts.name ?? 'credentials', 'bypass'),
  };
  const entries = new Map<string, Entry<T>>();
  const currentEpoch = () =>
    redis.get(epochKey).then(
      (e) => e ?? '0',
      () => null,
    );

  return {
    async lookup(key: string, load: () => Promise<{ value: T; expiresAt: Date } | null>): Promise<T | null> {
      const epoch = await currentEpoch();
      const now = Date.now();
      const hit = entries.get(key);
      if (epoch !== null && hit && hit.epoch === epoch && hit.expiresAt > now && now - hit.cachedAt < ttlMs) {
        counted.hit.inc();
        return hit.value;
      }
      (epoch === null ? counted.bypass : counted.miss).inc();
      const loaded = await load();
      if (!loaded) {
        entries.delete(key);
        return null;
      }
      if (epoch !== null) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(key, { value: loaded.value, epoch, expiresAt: loaded.expiresAt.getTime(), cachedAt: now });
      }
      return loaded.value;
    },

    /** After a write that takes access away: every process's entries stop counting. */
    async invalidate(): Promise<void> {
      await redis.incr(epochKey);
    },
  };
}

export type TokenCache<T> = ReturnType<typeof createTokenCache<T>>;

import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { cacheLookups } from '../lib/metrics';
import { invalidationsOf } from '../lib/engines/invalidations';
import { singleFlight } from '../lib/coalesced-reads';

const EPOCH_KEY = 'auth:access-token-epoch';
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  generation: number;
}

/**
 * Answers a hit after the event loop has read the other requests already received (the check phase), not at
 * once: under load their answers are then written together. Measured with bench:auth at 50 connections:
 * 0.65-0.72x of the bare route with this yield, 0.56-0.62x without (nothing reads Redis on a hit either way).
 */
const afterReceivedRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * An in-process cache of credential lookups (access tokens, sessions, triples) that can never serve a
 * revoked one: every change that takes access away (a token revoked, a logout, a user changed or removed,
 * a client deactivated or its secret rotated) is published to every API process through one Redis
 * subscription (src/lib/engines/invalidations.ts) after its write, and each process then stops trusting
 * what it cached before; the change is acknowledged only once every subscribed process has applied it. A hit
 * costs no Redis round trip.
 * While the subscription is not live (Redis unreachable, reconnecting) nothing is cached and every lookup
 * asks the database. The change also bumps a Redis counter (the epoch), which versions before this one
 * read on every lookup, so a rolling upgrade stays exact.
 */
export function createTokenCache<T>(
  redis: Redis,
  opts: {
    ttlMs?: number;
    /** Another cache's own counter and topic (integration keys use one). */
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
  // Full, the least recently used entry makes room (a busy credential stays cached); each lives until the
  // credential expires or ttlMs has passed, whichever is first.
  const entries = new LRUCache<string, Entry<T>>({ max: MAX_ENTRIES, ttl: ttlMs });
  const invalidations = invalidationsOf(redis);
  let generation = 0;
  const changed = new Set<() => void>();
  const subscription = invalidations.watch(epochKey, () => {
    generation++;
    entries.clear();
    changed.forEach((listener) => listener());
  });
  const loads = singleFlight<T | null>();

  async function loadAndKeep(key: string, load: () => Promise<{ value: T; expiresAt: Date } | null>) {
    const loadedUnder = generation;
    const loaded = await load();
    if (!loaded) {
      entries.delete(key);
      return null;
    }
    // Kept only if nothing was invalidated while it loaded (it may predate the change).
    if (subscription.live() && generation === loadedUnder) {
      const ttl = Math.min(ttlMs, loaded.expiresAt.getTime() - Date.now());
      if (ttl > 0) entries.set(key, { value: loaded.value, generation }, { ttl });
    }
    return loaded.value;
  }

  const fresh = (hit: Entry<T> | undefined): hit is Entry<T> => hit !== undefined && hit.generation === generation;

  return {
    async lookup(key: string, load: () => Promise<{ value: T; expiresAt: Date } | null>): Promise<T | null> {
      const live = subscription.live();
      const hit = entries.get(key);
      if (live && fresh(hit)) {
        await afterReceivedRequests();
        counted.hit.inc();
        return hit.value;
      }
      (live ? counted.miss : counted.bypass).inc();
      if (!live) return (await load())?.value ?? null;
      // Single flight: the lookups of one key that miss together (a cold process, or an entry's expiry under a
      // poller's load) share one read of the store. Only within one generation: a lookup made after a change took
      // access away never joins a read that may predate it.
      return loads(`${generation}\0${key}`, () => loadAndKeep(key, load));
    },

    /**
     * Calls `listener` (after the entries are dropped, so a lookup it makes reads the store) whenever access may
     * have been taken away on any process, or messages about it may have been missed. Returns the unsubscribe.
     */
    onChange(listener: () => void): () => void {
      changed.add(listener);
      return () => changed.delete(listener);
    },

    /** After a write that takes access away: every process's entries stop counting. */
    async invalidate(): Promise<void> {
      await Promise.all([redis.incr(epochKey), invalidations.publish(epochKey)]);
    },
  };
}

export type TokenCache<T> = ReturnType<typeof createTokenCache<T>>;

import { randomUUID } from 'node:crypto';
import net from 'node:net';
import Redis from 'ioredis';
import { createTokenCache } from '../../src/auth/token-cache';
import { eventually } from '../support/eventually';

/**
 * The per-process cache behind credentials, brands and integration keys, on the real Redis: two caches on two
 * connections stand for two API processes. A hit costs no round trip, so what keeps it exact is the
 * invalidation each process receives over its subscription.
 */
describe('the per-process credential cache', () => {
  const prefix = `test-cache-${randomUUID().slice(0, 8)}:`;
  const connections: Redis[] = [];
  const connect = (url = process.env.REDIS_URL!) => {
    const redis = new Redis(url, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    connections.push(redis);
    return redis;
  };
  afterAll(() => connections.forEach((c) => c.disconnect()));

  /** A cache and the number of loads it has asked for. */
  function cacheOn(redis: Redis) {
    const cache = createTokenCache<string>(redis, { epochKey: 'test:epoch' });
    const counter = { loads: 0 };
    const read = (key: string) =>
      cache.lookup(key, async () => {
        counter.loads++;
        return { value: `value of ${key}`, expiresAt: new Date(Date.now() + 60_000) };
      });
    return { cache, counter, read };
  }

  it('answers hits from memory, and an invalidation made by one process holds on the other at once', async () => {
    const one = cacheOn(connect());
    const other = cacheOn(connect());
    // Not cached before the subscription is live: the first lookups may go to the store.
    await eventually(async () => {
      const before = one.counter.loads + other.counter.loads;
      await Promise.all([one.read('k'), other.read('k')]);
      expect(one.counter.loads + other.counter.loads).toBe(before);
      return true;
    });
    const loads = other.counter.loads;
    for (let i = 0; i < 20; i++) expect(await other.read('k')).toBe('value of k');
    expect(other.counter.loads).toBe(loads); // twenty hits, no load

    await one.cache.invalidate();
    expect(await other.read('k')).toBe('value of k');
    expect(other.counter.loads).toBe(loads + 1); // the other process asked the store again
    const ownLoads = one.counter.loads;
    await one.read('k');
    expect(one.counter.loads).toBe(ownLoads + 1); // and so did the one that invalidated
  });

  it('caches nothing while Redis cannot be reached: every lookup asks the store', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
    const unreachable = cacheOn(connect(`redis://127.0.0.1:${port}`));
    for (let i = 0; i < 5; i++) expect(await unreachable.read('k')).toBe('value of k');
    expect(unreachable.counter.loads).toBe(5);
  });

  it('lookups of one key that miss together share one load, but none made after an invalidation joins it', async () => {
    const cache = createTokenCache<string>(connect(), { epochKey: 'test:flight-epoch' });
    // A load of 'cold' waits until the test answers it; any other key's is answered at once.
    const loads: { key: string; answer: (value: string) => void }[] = [];
    const read = (key: string) =>
      cache.lookup(
        key,
        () =>
          new Promise((resolve) => {
            const answer = (value: string) => resolve({ value, expiresAt: new Date(Date.now() + 60_000) });
            loads.push({ key, answer });
            if (key !== 'cold') answer(key);
          }),
      );
    // Only a live subscription caches, and only then do misses share their load.
    await eventually(async () => {
      await read('warm');
      const before = loads.length;
      await read('warm');
      return loads.length === before ? true : undefined;
    });

    const cold = Array.from({ length: 20 }, () => read('cold'));
    expect(loads.filter((l) => l.key === 'cold').length).toBe(1); // one read of the store for twenty lookups
    await cache.invalidate();
    await eventually(async () => {
      // Once the change is applied here, a new lookup starts its own load instead of joining the older one.
      const before = loads.length;
      void read('cold');
      return loads.length === before + 1 ? true : undefined;
    });
    const [older, newer] = loads.filter((l) => l.key === 'cold');
    older.answer('before the change');
    newer.answer('after the change');
    expect(new Set(await Promise.all(cold))).toEqual(new Set(['before the change']));
    expect(await read('cold')).toBe('after the change'); // the older load was not kept
  });

  it('full, drops the least recently used entry only: a credential in use stays a hit', async () => {
    const full = cacheOn(connect());
    await eventually(async () => {
      await full.read('hot');
      const before = full.counter.loads;
      await full.read('hot');
      return full.counter.loads === before ? true : undefined;
    });
    // 10,000 other keys, one more than the cache has room for beside 'hot', which is used between them.
    for (let i = 0; i < 10_000; i++) {
      await full.read(`key ${i}`);
      if (i % 1000 === 0) await full.read('hot');
    }
    const loads = full.counter.loads;
    expect(await full.read('hot')).toBe('value of hot');
    expect(await full.read('key 1')).toBe('value of key 1');
    expect(await full.read('key 9999')).toBe('value of key 9999');
    expect(full.counter.loads).toBe(loads); // all hits: nothing but one entry was dropped
    await full.read('key 0');
    expect(full.counter.loads).toBe(loads + 1); // the least recently used entry made room
  });

  it('serves an entry no longer than its credential lives', async () => {
    const cache = createTokenCache<string>(connect(), { epochKey: 'test:expiry-epoch' });
    let loads = 0;
    let expiresAt = Date.now() + 60_000;
    const read = () =>
      cache.lookup('short', async () => {
        loads++;
        return { value: 'short-lived', expiresAt: new Date(expiresAt) };
      });
    await eventually(async () => {
      await read();
      const before = loads;
      await read();
      return loads === before ? true : undefined;
    });
    await cache.invalidate(); // dropped, so the next load is kept with the short expiry below
    expiresAt = Date.now() + 300;
    await eventually(async () => {
      const before = loads;
      await read();
      return loads === before ? undefined : true;
    });
    const kept = loads;
    await read();
    if (Date.now() < expiresAt) expect(loads).toBe(kept); // still a hit before the expiry
    // Past the expiry, the store is asked again (time is the subject: waited for, not slept).
    await eventually(async () => {
      if (Date.now() <= expiresAt) return undefined;
      const before = loads;
      await read();
      return loads === before + 1 ? true : undefined;
    });
  });
});

import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const LEASE_MS = 15_000;
// Longer than a lease: a holder that died (a killed worker) delays the next writer, never fails it.
const WAIT_MS = LEASE_MS + 5_000;

/** Runs `work` while holding the named lock. */
export type RunLocked = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/**
 * One holder at a time per name, across processes: a short Redis lease (SET NX PX, released only by
 * its holder). For read-modify-write steps that must not interleave, on engines that do not make
 * them atomic (the devstack's FerretDB rewrites a document in separate steps) or where the step spans
 * several documents.
 */
export function createLocks(redis: Redis): { run: RunLocked } {
  return {
    async run(name, work) {
      const key = `lock:${name}`;
      const token = randomUUID();
      const deadline = Date.now() + WAIT_MS;
      while ((await redis.set(key, token, 'PX', LEASE_MS, 'NX')) !== 'OK') {
        if (Date.now() > deadline) throw new Error(`${name} is busy: its lock was not released within ${WAIT_MS} ms`);
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 15));
      }
      try {
        return await work();
      } finally {
        await redis.eval(UNLOCK, 1, key, token).catch(() => undefined);
      }
    },
  };
}

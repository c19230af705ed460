import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const LEASE_MS = 15_000;
// Longer than a lease: a holder that died (a killed worker) delays the next writer, never fails it.
const WAIT_MS = LEASE_MS + 5_000;

/**
 * One writer at a time per job record. MongoDB applies each update to a document atomically, but the
 * devstack's FerretDB reads and rewrites a document in separate steps, so two concurrent updates (a
 * pause from the API, a progress note from a worker) could lose one of them. Every change of a job
 * record goes through this short Redis lease (SET NX PX, released only by its holder), so the record
 * means the same on every engine.
 */
export function createJobLocks(redis: Redis) {
  return {
    async run<T>(jobId: string, work: () => Promise<T>): Promise<T> {
      const key = `lock:job:${jobId}`;
      const token = randomUUID();
      const deadline = Date.now() + WAIT_MS;
      while ((await redis.set(key, token, 'PX', LEASE_MS, 'NX')) !== 'OK') {
        if (Date.now() > deadline) throw new Error(`job ${jobId} is busy: its record lock was not released within ${WAIT_MS} ms`);
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

export type JobLocks = ReturnType<typeof createJobLocks>;

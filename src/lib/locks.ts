import { setTimeout as sleep } from 'node:timers/promises';
import type Redis from 'ioredis';
import { redisLease } from './lease';

const LEASE_MS = 15_000;

/** Runs `work` while holding the named lock. */
export type RunLocked = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/**
 * One holder at a time per name, across processes: a short Redis lease (lib/lease.ts), renewed while its
 * holder works, released only by its holder. For read-modify-write steps that must not interleave,
 * on engines that do not make them atomic (the devstack's FerretDB rewrites a document in separate
 * steps) or where the step spans several documents.
 */
export function createLocks(redis: Redis, opts: { leaseMs?: number } = {}): { run: RunLocked } {
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  // Longer than a lease: a holder that died (a killed worker) delays the next one, never fails it.
  const waitMs = leaseMs + 5_000;
  return {
    async run(name, work) {
      const lease = redisLease(redis, `lock:${name}`, leaseMs);
      const deadline = Date.now() + waitMs;
      while (!(await lease.take())) {
        if (Date.now() > deadline) throw new Error(`${name} is busy: its lock was not released within ${waitMs} ms`);
        await sleep(5 + Math.random() * 15);
      }
      // A holder that is alive keeps its lease for as long as its work takes; one that died loses it.
      const stopRenewing = lease.keep();
      try {
        return await work();
      } finally {
        stopRenewing();
        await lease.release();
      }
    },
  };
}

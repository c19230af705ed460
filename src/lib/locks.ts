import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/** A Lua script that runs `command` only while the lock still holds this holder's token (ARGV[1]). */
const ifHolder = (command: string) =>
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return ${command} else return 0 end`;
const UNLOCK = ifHolder(`redis.call('DEL', KEYS[1])`);
const RENEW = ifHolder(`redis.call('PEXPIRE', KEYS[1], ARGV[2])`);
const LEASE_MS = 15_000;

/** Runs `work` while holding the named lock. */
export type RunLocked = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/**
 * One holder at a time per name, across processes: a short Redis lease (SET NX PX, renewed while its
 * holder works, released only by its holder). For read-modify-write steps that must not interleave,
 * on engines that do not make them atomic (the devstack's FerretDB rewrites a document in separate
 * steps) or where the step spans several documents.
 */
export function createLocks(redis: Redis, opts: { leaseMs?: number } = {}): { run: RunLocked } {
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  // Longer than a lease: a holder that died (a killed worker) delays the next one, never fails it.
  const waitMs = leaseMs + 5_000;
  return {
    async run(name, work) {
      const key = `lock:${name}`;
      const token = randomUUID();
      const deadline = Date.now() + waitMs;
      while ((await redis.set(key, token, 'PX', leaseMs, 'NX')) !== 'OK') {
        if (Date.now() > deadline) throw new Error(`${name} is busy: its lock was not released within ${waitMs} ms`);
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 15));
      }
      // A holder that is alive keeps its lease for as long as its work takes; one that died loses it.
      const renewal = setInterval(
        () => void redis.eval(RENEW, 1, key, token, leaseMs).catch(() => undefined),
        leaseMs / 3,
      );
      try {
        return await work();
      } finally {
        clearInterval(renewal);
        await redis.eval(UNLOCK, 1, key, token).catch(() => undefined);
      }
    },
  };
}

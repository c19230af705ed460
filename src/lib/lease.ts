import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/** Runs `command` only while the key still holds this holder's token (ARGV[1]): one script, so atomic. */
const ifHolder = (command: string) =>
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return ${command} else return 0 end`;
const RELEASE = ifHolder(`redis.call('DEL', KEYS[1])`);
const RENEW = ifHolder(`redis.call('PEXPIRE', KEYS[1], ARGV[2])`);
/** Takes a free lease or renews this holder's own, in one step (a follower that ticks takes or keeps it). */
const HOLD = `local held = redis.call('GET', KEYS[1])
if held == false then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1 or 0 end
if held == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * A lease on one Redis key, for one holder across processes: taken with SET NX PX (so a holder that dies loses it
 * when it lapses), renewed and released only by the holder whose token it carries. The service's one lease: the
 * locks (lib/locks.ts), the report cache's single flight and the engine-log follower take it (the search index's
 * re-rank is a workflow: Temporal keeps it to one run per index, idap.workflows.ts).
 */
export interface Lease {
  readonly key: string;
  /** Takes the lease if it is free. */
  take(): Promise<boolean>;
  /** Extends the lease by its length if this holder still has it (false: it lapsed or another took it). */
  renew(): Promise<boolean>;
  /** Takes the lease if free or renews it if this holder has it: for a holder that claims it again on a timer. */
  hold(): Promise<boolean>;
  /** Gives the lease up if this holder has it; never throws (an unreleased lease lapses on its own). */
  release(): Promise<void>;
  /** Keeps the lease renewed while its holder works (keepRenewed); answers how to stop. */
  keep(): () => void;
}

/**
 * Keeps a lease of `leaseMs` alive while its holder is: `renew` every third of a lease, so two renewals may fail
 * (Redis away for a moment) before it lapses, and a holder that died stops renewing and loses it. The service's one
 * renewal timer: the locks, the event streams' leases, idempotency keys in flight and the API instances' liveness
 * renew through it. The timer never keeps a process alive; a failed renewal waits for the next. Answers how to stop.
 */
export function keepRenewed(renew: () => Promise<unknown>, leaseMs: number): () => void {
  const timer = setInterval(() => void renew().catch(() => undefined), leaseMs / 3);
  timer.unref();
  return () => clearInterval(timer);
}

export function redisLease(redis: Redis, key: string, leaseMs: number): Lease {
  const token = randomUUID();
  const renew = async () => Number(await redis.eval(RENEW, 1, key, token, leaseMs)) === 1;
  return {
    key,
    take: async () => (await redis.set(key, token, 'PX', leaseMs, 'NX')) === 'OK',
    renew,
    keep: () => keepRenewed(renew, leaseMs),
    hold: async () => Number(await redis.eval(HOLD, 1, key, token, leaseMs)) === 1,
    async release() {
      await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
    },
  };
}

import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { AppError } from '../lib/errors';
import { keepRenewed } from '../lib/lease';

/** How long a stream's lease lasts unless renewed: a stream of a process that died stops counting after this. */
export const STREAM_LEASE_MS = 30_000;

// Both scripts read Redis's clock, so API processes whose clocks differ agree on which leases have lapsed.
// TAKE drops the lapsed leases of the client, then takes one if fewer than ARGV[3] are held.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
// RENEW extends a lease; one that lapsed while its stream was still open (Redis unreachable for a while) is
// taken again even past the limit: the stream is open, so it counts.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

const leasesKey = (clientId: string | null) => `events:leases:${clientId ?? '*'}`;

export interface StreamLease {
  /** Gives the lease back (idempotent): the stream has closed. */
  release(): void;
}

/**
 * The open event streams of each client, counted across every API process: one lease per stream in a Redis
 * sorted set (member: the stream, score: when its lease lapses), renewed a third of a lease before it lapses
 * while the stream is open and removed when it closes. A client (null: a super_admin's all-clients stream)
 * holding `max` leases is refused with 429 until one of its streams closes or a dead process's leases lapse.
 */
export function createStreamLeases(redis: Redis, opts: { max: number; leaseMs?: number }) {
  const leaseMs = opts.leaseMs ?? STREAM_LEASE_MS;
  const retryAfterSeconds = Math.max(1, Math.ceil(leaseMs / 1000));
  return {
    async take(clientId: string | null): Promise<StreamLease> {
      const key = leasesKey(clientId);
      const id = randomUUID();
      if (Number(await redis.eval(TAKE, 1, key, id, leaseMs, opts.max)) !== 1) {
        const detail = `Too many open event streams for this client (at most ${opts.max}); close one or retry later`;
        throw AppError.tooManyRequests(detail, retryAfterSeconds);
      }
      const stopRenewing = keepRenewed(() => redis.eval(RENEW, 1, key, id, leaseMs), leaseMs);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          stopRenewing();
          void redis.zrem(key, id).catch(() => undefined);
        },
      };
    },

    /** Leases a client holds now (lapsed ones left out). */
    async count(clientId: string | null): Promise<number> {
      const [seconds, micros] = await redis.time();
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      return redis.zcount(leasesKey(clientId), `(${now}`, '+inf');
    },
  };
}

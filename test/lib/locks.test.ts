import { eventually } from '../support/eventually';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { createLocks } from '../../src/lib/locks';

describe('locks', () => {
  let redis: Redis;
  const name = () => `test-${randomBytes(4).toString('hex')}`;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(() => redis.quit());

  it('lets one holder work at a time, however long its work outlasts the lease', async () => {
    // The lease is short next to the work but long next to an event-loop stall on a loaded CI machine:
    // renewals come every lease/3, so the holder loses its lease only if it stalls for 2/3 of a lease.
    const locks = [createLocks(redis, { leaseMs: 1200 }), createLocks(redis, { leaseMs: 1200 })];
    const lock = name();
    const log: string[] = [];
    const work = (who: string) => async () => {
      log.push(`${who} in`);
      await pause(3000); // time is the subject: two and a half leases, which only renewal outlives
      log.push(`${who} out`);
    };
    const first = locks[0].run(lock, work('a'));
    await eventually(async () => ((await redis.exists(`lock:${lock}`)) ? true : undefined), 10_000, 5); // a holds it
    await Promise.all([first, locks[1].run(lock, work('b'))]);
    expect(log).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(await redis.exists(`lock:${lock}`)).toBe(0);
  });

  it('hands a lock on once a holder that died lets its lease run out', async () => {
    const lock = name();
    await redis.set(`lock:${lock}`, 'a holder that died', 'PX', 400);
    const started = Date.now();
    expect(
      await createLocks(redis, { leaseMs: 400 }).run(lock, async () => Date.now() - started),
    ).toBeGreaterThanOrEqual(350);
  });
});

import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { eventually } from '../support/eventually';
import { redisLease } from '../../src/lib/lease';

describe('the Redis lease', () => {
  let redis: Redis;
  const key = () => `test-lease-${randomBytes(4).toString('hex')}`;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(() => redis.quit());

  it('one holder at a time: only the holder renews or releases it', async () => {
    const name = key();
    const [a, b] = [redisLease(redis, name, 60_000), redisLease(redis, name, 60_000)];
    expect(await a.take()).toBe(true);
    expect(await b.take()).toBe(false);
    expect(await b.renew()).toBe(false);
    await b.release();
    expect(await redis.exists(name)).toBe(1);
    expect(await a.renew()).toBe(true);
    await a.release();
    expect(await redis.exists(name)).toBe(0);
    expect(await b.take()).toBe(true);
  });

  it('hold takes a free lease, keeps its own and never extends one another holder took after it lapsed', async () => {
    const name = key();
    const [a, b] = [redisLease(redis, name, 60_000), redisLease(redis, name, 60_000)];
    expect(await a.hold()).toBe(true);
    await redis.pexpire(name, 10);
    expect(await a.hold()).toBe(true);
    expect(await redis.pttl(name)).toBeGreaterThan(10_000); // renewed to its full length
    await redis.del(name); // a's lease lapsed...
    expect(await b.hold()).toBe(true); // ...and b took it
    expect(await a.hold()).toBe(false);
    expect(await a.renew()).toBe(false);
    expect(await redis.get(name)).not.toBeNull();
    await b.release();
  });

  it('keep renews the lease while its holder works, and once stopped lets it lapse', async () => {
    const name = key();
    const lease = redisLease(redis, name, 600);
    expect(await lease.take()).toBe(true);
    const stop = lease.keep();
    try {
      // Time is the subject: the lease cut short (but past the next renewal, due within 200 ms) is seen back at more
      // than it was left with, which only a renewal does.
      await redis.pexpire(name, 300);
      await eventually(async () => ((await redis.pttl(name)) > 400 ? true : undefined), 5000, 20);
    } finally {
      stop();
    }
    await eventually(async () => ((await redis.exists(name)) === 0 ? true : undefined));
  });
});

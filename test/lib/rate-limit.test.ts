import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { fixedWindows, type WindowGate } from '../../src/lib/rate-limit';
import { fakeClock } from '../support/fake-clock';

/** Refused while ARGV[ga + 1] is "no"; counts its own key on commit (value: that key's count). */
const GATE: WindowGate = {
  check: `refused = ARGV[ga + 1] == 'no'`,
  commit: `value = redis.call('INCR', KEYS[gk + 1])`,
};

describe('the fixed-window counter', () => {
  let redis: Redis;
  const name = () => `test-${randomBytes(4).toString('hex')}`;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(() => redis.quit());

  it('counts in windows of the passed clock: full until the window ends, then a fresh allowance', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1, 12, 0, 10)); // 10 s into a minute
    const limit = fixedWindows(redis, name(), clock);
    const entries = [{ subject: 'a', windows: [{ policy: 'rpm', max: 2, seconds: 60 }] }];
    expect((await limit.take(entries)).allowed).toBe(true);
    clock.advance(49_000); // the window's last second
    expect((await limit.take(entries)).allowed).toBe(true);
    const refused = await limit.take(entries);
    expect(refused.allowed).toBe(false);
    expect(refused.windows[0]).toMatchObject({ count: 2, remaining: 0, resetSeconds: 1, full: true });
    clock.advance(1000); // the next minute
    const next = await limit.take(entries);
    expect(next.allowed).toBe(true);
    expect(next.windows[0]).toMatchObject({ count: 1, resetSeconds: 60 });
  });

  it('all or nothing: one full window refuses the hit everywhere; count counts whatever; -1 takes one back', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const n = name();
    const limit = fixedWindows(redis, n, clock);
    const tight = { subject: 'tight', windows: [{ policy: 'rpm', max: 1, seconds: 60 }] };
    const loose = { subject: 'loose', windows: [{ policy: 'rpd', max: 100, seconds: 86_400 }] };
    expect((await limit.take([tight, loose])).allowed).toBe(true);
    expect((await limit.take([tight, loose])).allowed).toBe(false);
    expect((await limit.peek([tight, loose])).map((w) => w.count)).toEqual([1, 1]); // the refusal counted nothing
    expect((await limit.count([tight, loose])).map((w) => w.count)).toEqual([2, 2]);
    expect((await limit.count([tight], -1)).map((w) => w.count)).toEqual([1]);
    await limit.clear([tight]);
    expect((await limit.peek([tight, loose])).map((w) => w.count)).toEqual([0, 2]);
    // The key's lifetime is Redis's own count from the last hit (the window's length and a second), whatever the clock.
    const ttl = await redis.pttl(`rate:${n}:loose:${Math.floor(clock.now() / 86_400_000)}`);
    expect(ttl).toBeGreaterThan(86_390_000);
    expect(ttl).toBeLessThanOrEqual(86_401_000);
  });

  it('a gate decides in the same step: refused, nothing counts; let through, both count', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const limit = fixedWindows(redis, name(), clock);
    const entries = [{ subject: 's', windows: [{ policy: 'rpm', max: 1, seconds: 60 }] }];
    const gateKey = `gate-${randomBytes(4).toString('hex')}`;
    const refused = await limit.takeGated(entries, { gate: GATE, keys: [gateKey], args: ['no'] });
    expect(refused.verdict).toBe(2); // one window, so 2 is the gate
    expect((await limit.peek(entries))[0].count).toBe(0);
    const taken = await limit.takeGated(entries, { gate: GATE, keys: [gateKey], args: ['yes'] });
    expect([taken.verdict, taken.value, taken.windows[0].count]).toEqual([0, 1, 1]);
    const full = await limit.takeGated(entries, { gate: GATE, keys: [gateKey], args: ['yes'] });
    expect([full.verdict, await redis.get(gateKey)]).toEqual([1, '1']); // the window refused first: the gate never ran
    await redis.del(gateKey);
  });
});

import type Redis from 'ioredis';
import type { IntegrationDoc, SpendPeriod } from './integration.model';
import { dayOf, periodBounds, periodDaysSoFar, secondsUntil, toMicros } from './periods';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * One decision per call, atomic in Redis: refuse when the minute or the day window is full, or when
 * a blocking spend limit would be passed by this call's price; otherwise count the call in both
 * windows and its price in today's spend. KEYS: minute window, day window, then the spend counters of
 * the period's days so far (today's first). ARGV: minute limit, daily limit (-1: none), price and
 * blocking spend limit (-1: none) in millionths.
 * Returns {verdict (0 ok, 1 minute, 2 day, 3 spend), calls this minute, calls today, period spend}.
 */
const TAKE = `
local m = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = tonumber(redis.call('GET', KEYS[2]) or '0')
local ml = tonumber(ARGV[1])
local dl = tonumber(ARGV[2])
if ml >= 0 and m >= ml then return {1, m, d, 0} end
if dl >= 0 and d >= dl then return {2, m, d, 0} end
local price = tonumber(ARGV[3])
local sl = tonumber(ARGV[4])
local spent = 0
for i = 3, #KEYS do spent = spent + tonumber(redis.call('GET', KEYS[i]) or '0') end
if sl >= 0 and spent + price > sl then return {3, m, d, spent} end
m = redis.call('INCR', KEYS[1])
if m == 1 then redis.call('PEXPIRE', KEYS[1], 120000) end
d = redis.call('INCR', KEYS[2])
if d == 1 then redis.call('PEXPIRE', KEYS[2], 172800000) end
redis.call('INCRBY', KEYS[3], price)
redis.call('PEXPIRE', KEYS[3], 3456000000)
return {0, m, d, spent + price}`;

export type LimitVerdict =
  | { ok: true; spentMicros: number }
  | { ok: false; reason: 'minute_limit' | 'daily_limit' | 'spend_limit'; retryAfterSeconds: number };

export type LimitedKey = Pick<
  IntegrationDoc,
  'daily_limit' | 'minute_limit' | 'spend_limit_amount' | 'spend_limit_period' | 'spend_limit_action'
> & { _id: number };

const minuteKey = (id: number, at: Date) => `integration:${id}:calls:m:${Math.floor(at.getTime() / MINUTE_MS)}`;
const dayKey = (id: number, at: Date) => `integration:${id}:calls:d:${dayOf(at)}`;
const spendKey = (id: number, day: string) => `integration:${id}:spend:${day}`;

/** The period a key's spend is counted over (monthly when it sets none). */
export const spendPeriodOf = (key: Pick<LimitedKey, 'spend_limit_period'>): SpendPeriod =>
  key.spend_limit_period ?? 'monthly';

/**
 * Usage and spend limits per key in Redis (FerretDB would not make the counting atomic): windows
 * aligned to the UTC minute and day, spend per UTC day in millionths, summed over the spend period.
 */
export function createLimits(redis: Redis) {
  return {
    async take(key: LimitedKey, price: number, at = new Date()): Promise<LimitVerdict> {
      const period = spendPeriodOf(key);
      const blocking =
        key.spend_limit_action === 'block' && key.spend_limit_amount !== null && key.spend_limit_amount !== undefined;
      const keys = [
        minuteKey(key._id, at),
        dayKey(key._id, at),
        ...periodDaysSoFar(period, at).map((d) => spendKey(key._id, d)),
      ];
      const [verdict, , , spent] = (await redis.eval(
        TAKE,
        keys.length,
        ...keys,
        String(key.minute_limit ?? -1),
        String(key.daily_limit ?? -1),
        String(toMicros(price)),
        String(blocking ? toMicros(key.spend_limit_amount!) : -1),
      )) as number[];
      if (verdict === 0) return { ok: true, spentMicros: spent };
      const t = at.getTime();
      if (verdict === 1)
        return {
          ok: false,
          reason: 'minute_limit',
          retryAfterSeconds: secondsUntil((Math.floor(t / MINUTE_MS) + 1) * MINUTE_MS, t),
        };
      if (verdict === 2)
        return {
          ok: false,
          reason: 'daily_limit',
          retryAfterSeconds: secondsUntil((Math.floor(t / DAY_MS) + 1) * DAY_MS, t),
        };
      return {
        ok: false,
        reason: 'spend_limit',
        retryAfterSeconds: secondsUntil(periodBounds(period, at).end.getTime(), t),
      };
    },

    /**
     * Takes back the price of a call the provider never answered (it is not spend), and with `calls`
     * also its place in the windows (a call that was never sent at all).
     */
    async refund(keyId: number, price: number, at: Date, opts: { calls?: boolean } = {}): Promise<void> {
      const tx = redis.multi().decrby(spendKey(keyId, dayOf(at)), toMicros(price));
      if (opts.calls) tx.decr(minuteKey(keyId, at)).decr(dayKey(keyId, at));
      await tx.exec();
    },

    /** Adds a billing-sync correction (millionths, may be negative) to one day's spend. */
    async adjust(keyId: number, day: string, micros: number): Promise<void> {
      if (micros !== 0)
        await redis
          .multi()
          .incrby(spendKey(keyId, day), micros)
          .pexpire(spendKey(keyId, day), 40 * DAY_MS)
          .exec();
    },

    async usage(keyId: number, at = new Date()): Promise<{ usage_today: number; usage_this_minute: number }> {
      const [m, d] = await redis.mget(minuteKey(keyId, at), dayKey(keyId, at));
      return { usage_this_minute: Number(m ?? 0), usage_today: Number(d ?? 0) };
    },

    /** reset-usage: both call windows start again from zero (spend is not usage and stays). */
    async reset(keyId: number, at = new Date()): Promise<void> {
      await redis.del(minuteKey(keyId, at), dayKey(keyId, at));
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;

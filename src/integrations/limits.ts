import type Redis from 'ioredis';
import { systemClock, type Clock } from '../lib/clock';
import { fixedWindows, type WindowGate } from '../lib/rate-limit';
import type { IntegrationDoc, SpendPeriod } from './integration.model';
import { dayOf, periodBounds, periodDaysSoFar, secondsUntil, toMicros } from './periods';

const DAY_MS = 86_400_000;

/**
 * A key's spend limit, decided in the same step as its call windows (lib/rate-limit.ts's one counter): refused when
 * a blocking limit would be passed by this call's price, else the price is counted in today's spend. Gate KEYS: the
 * spend counters of the period's days so far (today's first). Gate ARGV: price and blocking spend limit (-1: none),
 * in millionths. Its value: the period's spend (with this call's price once counted).
 */
const SPEND: WindowGate = {
  check: `
local price = tonumber(ARGV[ga + 1])
local limit = tonumber(ARGV[ga + 2])
for i = gk + 1, #KEYS do value = value + tonumber(redis.call('GET', KEYS[i]) or '0') end
refused = limit >= 0 and value + price > limit`,
  commit: `
local price = tonumber(ARGV[ga + 1])
redis.call('INCRBY', KEYS[gk + 1], price)
redis.call('PEXPIRE', KEYS[gk + 1], 3456000000)
value = value + price`,
};

export type LimitVerdict =
  | { ok: true; spentMicros: number }
  | { ok: false; reason: 'minute_limit' | 'daily_limit' | 'spend_limit'; retryAfterSeconds: number };

export type LimitedKey = Pick<
  IntegrationDoc,
  'daily_limit' | 'minute_limit' | 'spend_limit_amount' | 'spend_limit_period' | 'spend_limit_action'
> & { _id: number };

/** A key's call windows, aligned to the UTC minute and day (Infinity: counted, never refused). */
const windowsOf = (key: Pick<LimitedKey, 'minute_limit' | 'daily_limit' | '_id'>) => [
  {
    subject: String(key._id),
    windows: [
      { policy: 'minute', max: key.minute_limit ?? Infinity, seconds: 60 },
      { policy: 'day', max: key.daily_limit ?? Infinity, seconds: 86_400 },
    ],
  },
];
const callWindowsOf = (keyId: number) => windowsOf({ _id: keyId, minute_limit: null, daily_limit: null });
const spendKey = (id: number, day: string) => `integration:${id}:spend:${day}`;

/** The period a key's spend is counted over (monthly when it sets none). */
export const spendPeriodOf = (key: Pick<LimitedKey, 'spend_limit_period'>): SpendPeriod =>
  key.spend_limit_period ?? 'monthly';

/**
 * Usage and spend limits per key in Redis (FerretDB would not make the counting atomic): the calls in windows
 * aligned to the UTC minute and day (lib/rate-limit.ts's counter, under the limit `integration-calls`), spend per
 * UTC day in millionths, summed over the spend period and decided in the same step.
 */
export function createLimits(redis: Redis, clock: Clock = systemClock) {
  const calls = fixedWindows(redis, 'integration-calls', clock);
  const REASONS = ['minute_limit', 'daily_limit', 'spend_limit'] as const;
  return {
    async take(key: LimitedKey, price: number, at = clock.date()): Promise<LimitVerdict> {
      const period = spendPeriodOf(key);
      const blocking =
        key.spend_limit_action === 'block' && key.spend_limit_amount !== null && key.spend_limit_amount !== undefined;
      const { verdict, value, windows } = await calls.takeGated(
        windowsOf(key),
        {
          gate: SPEND,
          keys: periodDaysSoFar(period, at).map((d) => spendKey(key._id, d)),
          args: [String(toMicros(price)), String(blocking ? toMicros(key.spend_limit_amount!) : -1)],
        },
        at.getTime(),
      );
      if (verdict === 0) return { ok: true, spentMicros: value };
      const reason = REASONS[verdict - 1];
      const retryAfterSeconds =
        reason === 'spend_limit'
          ? secondsUntil(periodBounds(period, at).end.getTime(), at.getTime())
          : windows[verdict - 1].resetSeconds;
      return { ok: false, reason, retryAfterSeconds };
    },

    /**
     * Takes back the price of a call the provider never answered (it is not spend), and with `calls`
     * also its place in the windows (a call that was never sent at all).
     */
    async refund(keyId: number, price: number, at: Date, opts: { calls?: boolean } = {}): Promise<void> {
      await Promise.all([
        redis.decrby(spendKey(keyId, dayOf(at)), toMicros(price)),
        opts.calls ? calls.count(callWindowsOf(keyId), -1, at.getTime()) : undefined,
      ]);
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

    async usage(keyId: number, at = clock.date()): Promise<{ usage_today: number; usage_this_minute: number }> {
      const [minute, day] = await calls.peek(callWindowsOf(keyId), at.getTime());
      return { usage_this_minute: minute.count, usage_today: day.count };
    },

    /** reset-usage: both call windows start again from zero (spend is not usage and stays). */
    async reset(keyId: number, at = clock.date()): Promise<void> {
      await calls.clear(callWindowsOf(keyId), at.getTime());
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;

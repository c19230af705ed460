import type Redis from 'ioredis';
import { AppError } from './errors';

export interface FixedWindow {
  /** Hits allowed in one window. */
  max: number;
  seconds: number;
}

export interface WindowCount {
  count: number;
  /** Whole seconds until the window ends (at least 1): the Retry-After of a refusal. */
  retryAfterSeconds: number;
}

/**
 * The Redis key of `subject`'s current window (one per window, so it expires with it) and the seconds left (at least
 * 1). Windows are aligned to the epoch: a minute window ends on the UTC minute, a day on UTC midnight.
 */
function currentWindow(prefix: string, subject: string, window: FixedWindow, nowMs = Date.now()) {
  const nowSeconds = nowMs / 1000;
  const index = Math.floor(nowSeconds / window.seconds);
  return {
    key: `${prefix}:${subject}:${index}`,
    retryAfterSeconds: Math.max(1, Math.ceil((index + 1) * window.seconds - nowSeconds)),
  };
}

/**
 * Fixed-window counters in Redis, shared by every API process: one key per subject and window, counted with
 * INCR and expiring with its window. `name` keeps one limit's keys apart from another's.
 */
export function fixedWindowLimit(redis: Redis, name: string, window: FixedWindow) {
  const current = (subject: string) => currentWindow(`rate:${name}`, subject, window);

  return {
    window,

    /** Counts one hit for `subject` and returns the window's count, this hit included. */
    async hit(subject: string, by = 1): Promise<WindowCount> {
      const { key, retryAfterSeconds } = current(subject);
      const [[, count]] = (await redis
        .multi()
        .incrby(key, by)
        .expire(key, window.seconds + 1)
        .exec()) as [[null, number]];
      return { count: Number(count), retryAfterSeconds };
    },

    /** Counts one hit and refuses it (429 with Retry-After) when it is past the window's allowance. */
    async take(subject: string, detail: string): Promise<void> {
      const { count, retryAfterSeconds } = await this.hit(subject);
      if (count > window.max) throw AppError.tooManyRequests(detail, retryAfterSeconds);
    },

    /** Takes a hit back (an attempt that turned out not to count, such as a login that succeeded). */
    async undo(subject: string): Promise<void> {
      await this.hit(subject, -1);
    },

    async clear(subject: string): Promise<void> {
      await redis.del(current(subject).key);
    },
  };
}

export interface DistinctCount extends WindowCount {
  /** Whether this member was new in the window (a refused newcomer is taken out again by `forget`). */
  added: boolean;
}

/**
 * How many distinct members (accounts, recipients) a subject met in one fixed window: a Redis set per subject
 * and window, expiring with it. Counting distinct members rather than hits tells many accounts tried from one
 * address (credential stuffing) from one person retrying their own.
 */
export function distinctWindowCount(redis: Redis, name: string, window: FixedWindow) {
  const current = (subject: string) => currentWindow(`distinct:${name}`, subject, window);

  return {
    window,

    /** Adds `member` to the subject's set and returns how many distinct members the window holds now. */
    async add(subject: string, member: string): Promise<DistinctCount> {
      const { key, retryAfterSeconds } = current(subject);
      const [[, added], [, count]] = (await redis
        .multi()
        .sadd(key, member)
        .scard(key)
        .expire(key, window.seconds + 1)
        .exec()) as [[null, number], [null, number]];
      return { count: Number(count), added: Number(added) === 1, retryAfterSeconds };
    },

    /** Takes a member out again (it turned out not to count: a refused attempt, a login that succeeded). */
    async forget(subject: string, member: string): Promise<void> {
      await redis.srem(current(subject).key, member);
    },
  };
}

/** One window of a subject's allowance, named as the RateLimit fields name its policy (e.g. `rpm`). */
export interface NamedWindow extends FixedWindow {
  policy: string;
}

/** A window after a take: what is left of it and when it starts again. */
export interface WindowState extends NamedWindow {
  subject: string;
  /** Hits counted in the window, this one included when it was allowed. */
  count: number;
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetSeconds: number;
  full: boolean;
}

/**
 * All or nothing, in one round trip: when any window is already full nothing is counted (a refused hit does not
 * use the allowance up); otherwise every window counts the hit and expires with itself. KEYS: the windows' keys;
 * ARGV: per key its allowance, then its lifetime in milliseconds. Returns {allowed (1 or 0), count per key}.
 */
const TAKE_ALL = `
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] >= tonumber(ARGV[2 * i - 1]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, #KEYS do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[2 * i]) end
  end
end
local out = {allowed}
for i = 1, #KEYS do out[i + 1] = counts[i] end
return out`;

/**
 * Several fixed windows (say per minute and per day) of several subjects taken together under the limit `name`,
 * atomically in one Redis round trip: the hit counts everywhere or, when any window is full, nowhere.
 */
export function fixedWindows(redis: Redis, name: string) {
  type Entries = { subject: string; windows: NamedWindow[] }[];
  const slotsOf = (entries: Entries) => {
    const now = Date.now();
    return entries.flatMap(({ subject, windows }) =>
      windows.map((w) => ({ subject, window: w, ...currentWindow(`rate:${name}`, subject, w, now) })),
    );
  };
  const statesOf = (slots: ReturnType<typeof slotsOf>, counts: number[]): WindowState[] =>
    slots.map((s, i) => ({
      ...s.window,
      subject: s.subject,
      count: counts[i],
      remaining: Math.max(0, s.window.max - counts[i]),
      resetSeconds: s.retryAfterSeconds,
      full: counts[i] >= s.window.max,
    }));

  return {
    async take(entries: Entries): Promise<{ allowed: boolean; windows: WindowState[] }> {
      const slots = slotsOf(entries);
      if (!slots.length) return { allowed: true, windows: [] };
      const args = slots.flatMap((s) => [String(s.window.max), String((s.window.seconds + 1) * 1000)]);
      const [allowed, ...counts] = (await redis.eval(
        TAKE_ALL,
        slots.length,
        ...slots.map((s) => s.key),
        ...args,
      )) as number[];
      return { allowed: allowed === 1, windows: statesOf(slots, counts) };
    },

    /** The windows as they stand, counting nothing (one round trip). */
    async peek(entries: Entries): Promise<WindowState[]> {
      const slots = slotsOf(entries);
      if (!slots.length) return [];
      const counts = await redis.mget(...slots.map((s) => s.key));
      return statesOf(
        slots,
        counts.map((c) => Number(c ?? 0)),
      );
    },
  };
}

/**
 * At most one hit per subject within `seconds` of the last one allowed (a spacing, not a count, so two hits never
 * pass closer together, as a fixed window lets them across its edge): the first hit sets a key that lapses after
 * the spacing (SET NX PX), and a refused hit does not move it. A client that waits the spacing after each answer
 * is never refused.
 */
export function minimumSpacing(redis: Redis, name: string, seconds: number) {
  return {
    seconds,
    /** Whether this hit is at least the spacing after the last one allowed (and counts it when it is). */
    async allows(subject: string): Promise<boolean> {
      return (await redis.set(`spacing:${name}:${subject}`, '1', 'PX', seconds * 1000, 'NX')) === 'OK';
    },
  };
}

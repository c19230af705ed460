import type Redis from 'ioredis';
import { systemClock, type Clock } from './clock';
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
 * 1). Windows are aligned to the epoch: a minute window ends on the UTC minute, a day on UTC midnight. Which window
 * is current comes from the passed clock (src/lib/clock.ts); how long its key lives is a lifetime Redis counts from
 * the hit (the window's length and a second), so a key outlives its window on whichever clock the window was read.
 */
function currentWindow(prefix: string, subject: string, window: FixedWindow, nowMs: number) {
  const nowSeconds = nowMs / 1000;
  const index = Math.floor(nowSeconds / window.seconds);
  return {
    key: `${prefix}:${subject}:${index}`,
    retryAfterSeconds: Math.max(1, Math.ceil((index + 1) * window.seconds - nowSeconds)),
  };
}

/**
 * One fixed window of one subject's allowance under the limit `name` (a view of `fixedWindows`, the one counter).
 */
export function fixedWindowLimit(redis: Redis, name: string, window: FixedWindow, clock: Clock = systemClock) {
  const windows = fixedWindows(redis, name, clock);
  const entries = (subject: string) => [{ subject, windows: [{ ...window, policy: name }] }];
  const countOf = ([w]: WindowState[]): WindowCount => ({ count: w.count, retryAfterSeconds: w.resetSeconds });

  return {
    window,

    /** Counts one hit for `subject` whatever the allowance and returns the window's count, this hit included. */
    async hit(subject: string, by = 1): Promise<WindowCount> {
      return countOf(await windows.count(entries(subject), by));
    },

    /** Counts one hit, or refuses it (429 with Retry-After, counting nothing) when the window is full. */
    async take(subject: string, detail: string): Promise<void> {
      const { allowed, windows: states } = await windows.take(entries(subject));
      if (!allowed) throw AppError.tooManyRequests(detail, countOf(states).retryAfterSeconds);
    },

    /** Takes a hit back (an attempt that turned out not to count, such as a login that succeeded). */
    async undo(subject: string): Promise<void> {
      await this.hit(subject, -1);
    },

    async clear(subject: string): Promise<void> {
      await windows.clear(entries(subject));
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
export function distinctWindowCount(redis: Redis, name: string, window: FixedWindow, clock: Clock = systemClock) {
  const current = (subject: string) => currentWindow(`distinct:${name}`, subject, window, clock.now());

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
 * A decision that must be taken in the same step as the windows' (a key's spend limit beside its call windows): Lua
 * run after the windows were found to have room and before anything is counted. Its keys follow the windows' and its
 * arguments theirs: in Lua, KEYS[gk + 1]... and ARGV[ga + 1]....
 */
export interface WindowGate {
  /** Lua that sets `refused` (true: nothing is counted) and `value` (answered either way). */
  check: string;
  /** Lua run after the windows counted the hit; it may set `value` again. */
  commit: string;
}

/**
 * The one fixed-window counter of the service, with room for a gate. KEYS: the windows' keys, then the gate's;
 * ARGV[1]: how many windows; ARGV[2]: the hit (1, or -1 to take one back); then per window its allowance (-1: counted
 * whatever the count) and its lifetime in milliseconds; then the gate's arguments. All or nothing, in one round trip:
 * when a window with an allowance is already full, or the gate refuses, nothing is counted (a refused hit does not
 * use the allowance up); otherwise every window counts the hit and lives its lifetime from it.
 * Returns {verdict (0 counted, i: the first full window, windows + 1: the gate refused), the gate's value, counts}.
 */
const countScript = (gate: WindowGate = { check: '', commit: '' }) => `
local n = tonumber(ARGV[1])
local by = tonumber(ARGV[2])
local gk, ga = n, 2 + 2 * n
local counts = {}
local verdict = 0
for i = 1, n do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  local allowance = tonumber(ARGV[1 + 2 * i])
  if verdict == 0 and by > 0 and allowance >= 0 and counts[i] >= allowance then verdict = i end
end
local refused, value = false, 0
if verdict == 0 then
${gate.check}
  if refused then verdict = n + 1 end
end
if verdict == 0 then
  for i = 1, n do
    counts[i] = redis.call('INCRBY', KEYS[i], by)
    redis.call('PEXPIRE', KEYS[i], ARGV[2 + 2 * i])
  end
${gate.commit}
end
local out = {verdict, value}
for i = 1, n do out[i + 2] = counts[i] end
return out`;
const COUNT = countScript();

/** A window's allowance as the counter reads it: -1 when the hit is counted whatever the count. */
const allowanceOf = (w: FixedWindow, bounded: boolean) => (bounded && Number.isFinite(w.max) ? w.max : -1);

/**
 * Several fixed windows (say per minute and per day) of several subjects taken together under the limit `name`,
 * atomically in one Redis round trip: the hit counts everywhere or, when any window is full, nowhere. A window
 * whose `max` is Infinity counts without refusing. `at` (ms) reads the windows of another moment than the clock's
 * (a refund in the windows its call was counted in).
 */
export function fixedWindows(redis: Redis, name: string, clock: Clock = systemClock) {
  type Entries = { subject: string; windows: NamedWindow[] }[];
  const slotsOf = (entries: Entries, at = clock.now()) =>
    entries.flatMap(({ subject, windows }) =>
      windows.map((w) => ({ subject, window: w, ...currentWindow(`rate:${name}`, subject, w, at) })),
    );
  const statesOf = (slots: ReturnType<typeof slotsOf>, counts: number[]): WindowState[] =>
    slots.map((s, i) => ({
      ...s.window,
      subject: s.subject,
      count: counts[i],
      remaining: Math.max(0, s.window.max - counts[i]),
      resetSeconds: s.retryAfterSeconds,
      full: counts[i] >= s.window.max,
    }));
  const scripts = new Map<WindowGate, string>();
  async function run(entries: Entries, by: number, bounded: boolean, at?: number, gated?: Gated) {
    const slots = slotsOf(entries, at);
    if (!slots.length && !gated) return { verdict: 0, value: 0, windows: [] };
    let script = COUNT;
    if (gated) {
      script = scripts.get(gated.gate) ?? countScript(gated.gate);
      scripts.set(gated.gate, script);
    }
    const args = slots.flatMap((s) => [String(allowanceOf(s.window, bounded)), String((s.window.seconds + 1) * 1000)]);
    const [verdict, value, ...counts] = (await redis.eval(
      script,
      slots.length + (gated?.keys.length ?? 0),
      ...slots.map((s) => s.key),
      ...(gated?.keys ?? []),
      String(slots.length),
      String(by),
      ...args,
      ...(gated?.args ?? []),
    )) as number[];
    return { verdict, value, windows: statesOf(slots, counts) };
  }

  return {
    async take(entries: Entries, at?: number): Promise<{ allowed: boolean; windows: WindowState[] }> {
      const { verdict, windows } = await run(entries, 1, true, at);
      return { allowed: verdict === 0, windows };
    },

    /**
     * Takes the hit as `take` does, and only if `gated.gate` lets it (in the same step). Answers the verdict (0
     * counted, i: the i-th window was full, windows + 1: the gate refused) and the gate's value.
     */
    async takeGated(entries: Entries, gated: Gated, at?: number) {
      return run(entries, 1, true, at, gated);
    },

    /** Counts the hit (or with `by` -1 takes one back) in every window whatever its allowance. */
    async count(entries: Entries, by = 1, at?: number): Promise<WindowState[]> {
      return (await run(entries, by, false, at)).windows;
    },

    /** The windows as they stand, counting nothing (one round trip). */
    async peek(entries: Entries, at?: number): Promise<WindowState[]> {
      const slots = slotsOf(entries, at);
      if (!slots.length) return [];
      const counts = await redis.mget(...slots.map((s) => s.key));
      return statesOf(
        slots,
        counts.map((c) => Number(c ?? 0)),
      );
    },

    /** The windows start again from zero. */
    async clear(entries: Entries, at?: number): Promise<void> {
      const slots = slotsOf(entries, at);
      if (slots.length) await redis.del(...slots.map((s) => s.key));
    },
  };
}

/** A gate with the keys and arguments of one take. */
export interface Gated {
  gate: WindowGate;
  keys: string[];
  args: string[];
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

import type Redis from 'ioredis';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../lib/errors';
import type { Schemas } from '../lib/contract-types';
import { serializeList, type Item } from 'structured-headers';
import { systemClock, type Clock } from '../lib/clock';
import { fixedWindows, type NamedWindow, type WindowState } from '../lib/rate-limit';
import type { Caller } from '../lib/tenancy';
import { BRAND_HEADER } from '../brands/acting-brand';
import { limitHolders, type LimitHolder } from './agent-limits';

const MINUTE = { policy: 'rpm', seconds: 60, per: 'minute' } as const;
const DAY = { policy: 'rpd', seconds: 86_400, per: 'day' } as const;

/**
 * The allowances a request of an agent counts against: the agent user of the brand it acts for (its X-Brand-Id,
 * or the token's only brand); a multi-brand token's request that names none of its brands acts for no one brand
 * and counts against each of them, so leaving the header out never escapes a brand's allowance. A token that acts
 * for no brand counts against its own.
 */
function countedHolders(caller: Caller, brandHeader: string | undefined): LimitHolder[] {
  const holders = limitHolders(caller);
  const named = brandHeader === undefined ? undefined : holders.find((h) => String(h.brandId) === brandHeader.trim());
  return named ? [named] : holders;
}

function windowsOf(holder: LimitHolder): NamedWindow[] {
  return [
    ...(holder.rateLimitRpm ? [{ policy: MINUTE.policy, max: holder.rateLimitRpm, seconds: MINUTE.seconds }] : []),
    ...(holder.rateLimitRpd ? [{ policy: DAY.policy, max: holder.rateLimitRpd, seconds: DAY.seconds }] : []),
  ];
}

/** Per policy, the window closest to running out (the tightest agent user's). */
function tightest(windows: WindowState[]): WindowState[] {
  const byPolicy = new Map<string, WindowState>();
  for (const w of windows) {
    const seen = byPolicy.get(w.policy);
    if (!seen || w.remaining < seen.remaining || (w.remaining === seen.remaining && w.resetSeconds > seen.resetSeconds))
      byPolicy.set(w.policy, w);
  }
  return [MINUTE, DAY].flatMap((p) => byPolicy.get(p.policy) ?? []);
}

/** A quota as the RateLimit fields show it; a quota without a window (a bound on work at once) has no w and t. */
export type RateLimitState = Pick<WindowState, 'policy' | 'max' | 'remaining'> &
  Partial<Pick<WindowState, 'seconds' | 'resetSeconds'>>;

/**
 * The RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers (its structured-field
 * syntax): one quota policy per limit the agent has, `"rpm";q=<quota>;w=60` and `"rpd";q=<quota>;w=86400`, and
 * for each what is left of it and the seconds until its window starts again, `"rpm";r=<left>;t=<seconds>`. The
 * draft's w and t are optional: a quota without a window (the jobs a client may have unfinished) leaves them out.
 */
export function rateLimitFields(windows: RateLimitState[]): Record<string, string> {
  /** One quota as a String Item with Integer parameters, those without a value left out. */
  const item = (policy: string, params: [string, number | undefined][]): Item => [
    policy,
    new Map(params.filter((p): p is [string, number] => p[1] !== undefined)),
  ];
  return {
    'RateLimit-Policy': serializeList(
      windows.map((w) =>
        item(w.policy, [
          ['q', w.max],
          ['w', w.seconds],
        ]),
      ),
    ),
    RateLimit: serializeList(
      windows.map((w) =>
        item(w.policy, [
          ['r', w.remaining],
          ['t', w.resetSeconds],
        ]),
      ),
    ),
  };
}

/** Requests left in the current UTC minute and day of an allowance (null: no such limit). */
export type RemainingRequests = Schemas['RemainingRequests'];

/**
 * Agents' rate_limit_rpm and rate_limit_rpd. `gate` runs after authentication: every request of an agent with a
 * limit counts in Redis (shared by every API process, one round trip for all its windows) against the allowances
 * it counts against (countedHolders); past a limit it is refused with 429, Retry-After and code `rate_limited`,
 * without counting. Every answer to such an agent carries the RateLimit fields; other callers pass untouched.
 * `remaining` reads what is left of allowances without counting (the agent's status shows it).
 */
export function createAgentRequestLimits(redis: Redis, clock: Clock = systemClock) {
  const limits = fixedWindows(redis, 'agent-user', clock);
  const entriesOf = (holders: LimitHolder[]) =>
    holders.map((h) => ({ subject: h.subject, windows: windowsOf(h) })).filter((e) => e.windows.length);

  return {
    async gate(req: Request, res: Response, next: NextFunction) {
      const caller = req.caller;
      if (caller?.kind !== 'agent') return next();
      const entries = entriesOf(countedHolders(caller, req.get(BRAND_HEADER)));
      if (!entries.length) return next();
      const taken = await limits.take(entries);
      const shown = tightest(taken.windows);
      res.set(rateLimitFields(shown));
      if (!taken.allowed) {
        const full = taken.windows.filter((w) => w.full);
        const retryAfter = Math.max(...full.map((w) => w.resetSeconds));
        const reached = [MINUTE, DAY].filter((p) => full.some((w) => w.policy === p.policy));
        const what = reached.map((p) => `${full.find((w) => w.policy === p.policy)!.max} requests per ${p.per}`);
        throw AppError.tooManyRequests(
          `Rate limit of this agent reached (${what.join(' and ')}); retry after ${retryAfter} s`,
          retryAfter,
          'rate_limited',
        );
      }
      next();
    },

    /** Each allowance's requests left (by its subject), counting nothing. */
    async remaining(holders: LimitHolder[]): Promise<Map<string, RemainingRequests>> {
      const windows = await limits.peek(entriesOf(holders));
      const left = (subject: string, policy: string) =>
        windows.find((w) => w.subject === subject && w.policy === policy)?.remaining ?? null;
      return new Map(holders.map((h) => [h.subject, { rpm: left(h.subject, 'rpm'), rpd: left(h.subject, 'rpd') }]));
    },
  };
}

export type AgentRequestLimits = ReturnType<typeof createAgentRequestLimits>;

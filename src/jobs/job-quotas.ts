import type Redis from 'ioredis';
import { rateLimitFields, type RateLimitState } from '../agents/request-limits';
import { dayOf, periodBounds, secondsUntil } from '../integrations/periods';
import { AppError, type ErrorCode } from '../lib/errors';
import { httpRequestsShed } from '../lib/metrics';
import { systemClock, type Clock } from '../lib/clock';
import { minimumSpacing } from '../lib/rate-limit';
import { FINAL_STATES, JobModel } from './job.model';

/** The bounds a job counts against, each 0 for none. */
export interface CountedBounds {
  /** Jobs not yet ended at once (queued, running or paused). */
  unfinished: number;
  /** Jobs accepted in the UTC day. */
  day: number;
  /** Jobs accepted in the UTC calendar month. */
  month: number;
}

/** Who a job counts against: its client, and each brand an agent submitted it for. */
export interface QuotaSubject {
  kind: 'client' | 'brand';
  /** The client's id, or the brand's. */
  id: string;
  clientId: string;
  bounds: CountedBounds;
}

/** One bound of a subject as a submit met it: how many it counts (this job included when it was counted). */
export interface BoundState {
  subject: QuotaSubject;
  bound: keyof CountedBounds;
  max: number;
  count: number;
  /** Seconds until the window starts again (the day's or the month's); absent for the unfinished jobs. */
  resetSeconds?: number;
  /** The window's length in seconds (a month's is the current month's); absent for the unfinished jobs. */
  windowSeconds?: number;
  full: boolean;
}

export type AdmissionVerdict = 'counted' | 'counted_before' | 'bound_full' | 'fair_share';

export interface Admission {
  verdict: AdmissionVerdict;
  /** The client's share of the deployment's bound, where the fair-share rule was applied (else 0). */
  share: number;
  /** Every bound of every subject (bounds of 0 left out). */
  states: BoundState[];
  /**
   * Takes back what a counted admission counted: for a job that was not stored after all, or (`keepUnfinished`, only
   * the day's and month's counts) for a job stored by an earlier attempt and still unfinished.
   */
  undo(opts?: { keepUnfinished?: boolean }): Promise<void>;
}

const BOUNDS = ['unfinished', 'day', 'month'] as const;
const HOUR_MS = 3_600_000;
/** A job counted this recently is kept by a reconciliation that does not find its record: its submit may be storing it. */
const RECONCILE_GRACE_MS = 60_000;
/** A subject's unfinished jobs are read from the records at most this often (when it meets its bound, or is read). */
const RECONCILE_SPACING_SECONDS = 5;
/** The most unfinished job records a reconciliation reads for one subject. */
const RECONCILE_MAX_JOBS = 10_000;

const unfinishedKey = (s: Pick<QuotaSubject, 'kind' | 'id'>) => `jobs:unfinished:${s.kind}:${s.id}`;
const countKey = (s: Pick<QuotaSubject, 'kind' | 'id'>, period: string) => `jobs:accepted:${s.kind}:${s.id}:${period}`;
/** The clients with unfinished jobs (the fair-share rule divides the deployment's bound among them). */
const BUSY_CLIENTS = 'jobs:busy-clients';

/**
 * Checks every bound and, when none is full, counts the job against all of them, in one step. KEYS: per subject its
 * unfinished set (a sorted set of job ids, scored by the time they were counted), its day count and its month count;
 * then the busy clients' set. ARGV: the job id, now (ms), the client id, the deployment's bound when the fair-share
 * rule applies (else 0); then per subject its three bounds (0: none) and the day's and the month's lifetime (ms, an
 * hour past the window's end on the passed clock, counted by Redis from now: so a clock a test moves never makes a
 * window's key lapse before its window ends). The unfinished sets' scores are the system clock's, as the job records'
 * times that reconciliation compares them with.
 * Returns {verdict (0 counted, 1 counted before, 2 a bound full, 3 past the fair share), share, the counts}.
 * A job already in the client's set (a retried record, a keyed submit whose first attempt counted) is never
 * refused nor counted twice.
 */
const ADMIT = `
local n = (#KEYS - 1) / 3
local job, now, client, fair = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local before = redis.call('ZSCORE', KEYS[1], job)
local counts = {}
local verdict = 0
for i = 1, n do
  counts[3 * i - 2] = redis.call('ZCARD', KEYS[3 * i - 2])
  counts[3 * i - 1] = tonumber(redis.call('GET', KEYS[3 * i - 1]) or '0')
  counts[3 * i] = tonumber(redis.call('GET', KEYS[3 * i]) or '0')
  for b = 0, 2 do
    local bound = tonumber(ARGV[5 * i + b])
    if bound > 0 and counts[3 * i - 2 + b] >= bound then verdict = 2 end
  end
end
if before then return {1, 0, unpack(counts)} end
local share = 0
if verdict == 0 and fair > 0 then
  local tenants = redis.call('SCARD', KEYS[#KEYS])
  if redis.call('SISMEMBER', KEYS[#KEYS], client) == 0 then tenants = tenants + 1 end
  share = math.max(1, math.floor(fair / (tenants + 1)))
  if counts[1] >= share then verdict = 3 end
end
if verdict == 0 then
  for i = 1, n do
    redis.call('ZADD', KEYS[3 * i - 2], now, job)
    counts[3 * i - 2] = redis.call('ZCARD', KEYS[3 * i - 2])
    counts[3 * i - 1] = redis.call('INCR', KEYS[3 * i - 1])
    redis.call('PEXPIRE', KEYS[3 * i - 1], ARGV[5 * i + 3])
    counts[3 * i] = redis.call('INCR', KEYS[3 * i])
    redis.call('PEXPIRE', KEYS[3 * i], ARGV[5 * i + 4])
  end
  redis.call('SADD', KEYS[#KEYS], client)
end
return {verdict, share, unpack(counts)}`;

/**
 * A job that ended (or was never stored) leaves its subjects' unfinished sets. KEYS: the client's set, the brands'
 * sets, the busy clients' set. ARGV: the job id, the client id. A client left without unfinished jobs is not busy.
 */
const RELEASE = `
for i = 1, #KEYS - 1 do redis.call('ZREM', KEYS[i], ARGV[1]) end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[#KEYS], ARGV[2]) end
return 1`;

/**
 * Makes a subject's unfinished set what the job records say: ids counted before `cutoff` without an unfinished record
 * go (their removal was lost), unfinished records missing from it come in (scored by their creation). KEYS: the set,
 * the busy clients' set. ARGV: the cutoff (ms), the client id for a client's set ('' for a brand's), then each
 * unfinished record's id and creation time (ms). Returns the set's size.
 */
const RECONCILE = `
local stored = {}
for i = 3, #ARGV, 2 do stored[ARGV[i]] = true end
local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  if not stored[members[i]] and tonumber(members[i + 1]) < tonumber(ARGV[1]) then
    redis.call('ZREM', KEYS[1], members[i])
  end
end
for i = 3, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i]) end
end
local size = redis.call('ZCARD', KEYS[1])
if ARGV[2] ~= '' then
  if size == 0 then redis.call('SREM', KEYS[2], ARGV[2]) else redis.call('SADD', KEYS[2], ARGV[2]) end
end
return size`;

/** The UTC day's and month's windows at `at`: their keys' suffixes, ends and lengths. */
function windowsAt(at: Date) {
  const day = periodBounds('daily', at);
  const month = periodBounds('monthly', at);
  return {
    day: { period: dayOf(day.start), end: day.end.getTime(), seconds: 86_400 },
    month: {
      period: dayOf(month.start).slice(0, 7),
      end: month.end.getTime(),
      seconds: (month.end.getTime() - month.start.getTime()) / 1000,
    },
  };
}

/**
 * Jobs per tenant (docs/security.md, "Jobs per tenant"): each job counts against its client and against each brand
 * an agent submitted it for, in Redis, where every API process and worker sees the same counts, each check-and-count
 * one atomic script: the unfinished jobs as a sorted set of job ids (added when the job is accepted, removed when it
 * ends: exact, and reconciled from the job records when a subject meets its bound, so a removal lost to a crash
 * cannot lock a client out), and the jobs accepted in the UTC day and the UTC calendar month as counters that expire
 * with their window.
 */
export function createJobQuotas(redis: Redis, clock: Clock = systemClock) {
  const reconcileSpacing = minimumSpacing(redis, 'jobs-reconcile', RECONCILE_SPACING_SECONDS);

  /** The subject's unfinished set made what the job records say (see RECONCILE). */
  async function reconcile(subject: Pick<QuotaSubject, 'kind' | 'id' | 'clientId'>): Promise<number> {
    const filter =
      subject.kind === 'client'
        ? { client_id: subject.id, status: { $nin: FINAL_STATES } }
        : { client_id: subject.clientId, brand_ids: Number(subject.id), status: { $nin: FINAL_STATES } };
    const jobs = await JobModel.find(filter, { _id: 1, created_at: 1 })
      .limit(RECONCILE_MAX_JOBS)
      .lean<{ _id: string; created_at: Date }[]>();
    const size = await redis.eval(
      RECONCILE,
      2,
      unfinishedKey(subject),
      BUSY_CLIENTS,
      String(Date.now() - RECONCILE_GRACE_MS),
      subject.kind === 'client' ? subject.id : '',
      ...jobs.flatMap((j) => [j._id, String(j.created_at.getTime())]),
    );
    return Number(size);
  }

  /** Reconciles the subject unless another process or request did within the spacing. */
  async function reconcileSpaced(subject: Pick<QuotaSubject, 'kind' | 'id' | 'clientId'>): Promise<boolean> {
    if (!(await reconcileSpacing.allows(`${subject.kind}:${subject.id}`))) return false;
    await reconcile(subject);
    return true;
  }

  async function release(jobId: string, clientId: string, brandIds: readonly number[] = []): Promise<void> {
    const subjects = [
      { kind: 'client', id: clientId } as const,
      ...brandIds.map((b) => ({ kind: 'brand', id: String(b) }) as const),
    ];
    await redis.eval(RELEASE, subjects.length + 1, ...subjects.map(unfinishedKey), BUSY_CLIENTS, jobId, clientId);
  }

  async function take(jobId: string, subjects: QuotaSubject[], fairBound: number) {
    const at = clock.date();
    const windows = windowsAt(at);
    const keys = subjects.flatMap((s) => [
      unfinishedKey(s),
      countKey(s, windows.day.period),
      countKey(s, windows.month.period),
    ]);
    const args = subjects.flatMap((s) => [
      String(s.bounds.unfinished),
      String(s.bounds.day),
      String(s.bounds.month),
      String(windows.day.end + HOUR_MS - at.getTime()),
      String(windows.month.end + HOUR_MS - at.getTime()),
    ]);
    const [verdict, share, ...counts] = (await redis.eval(
      ADMIT,
      keys.length + 1,
      ...keys,
      BUSY_CLIENTS,
      jobId,
      String(Date.now()),
      subjects[0].clientId,
      String(fairBound),
      ...args,
    )) as number[];
    const states: BoundState[] = subjects.flatMap((subject, i) =>
      BOUNDS.flatMap((bound, b): BoundState[] => {
        const max = subject.bounds[bound];
        if (max <= 0) return [];
        const count = counts[3 * i + b];
        const window = bound === 'unfinished' ? null : windows[bound];
        return [
          {
            subject,
            bound,
            max,
            count,
            ...(window && {
              resetSeconds: secondsUntil(window.end, at.getTime()),
              windowSeconds: window.seconds,
            }),
            full: count >= max,
          },
        ];
      }),
    );
    const named: AdmissionVerdict[] = ['counted', 'counted_before', 'bound_full', 'fair_share'];
    return {
      verdict: named[verdict],
      share,
      states,
      undo: async (opts: { keepUnfinished?: boolean } = {}) => {
        if (verdict !== 0) return;
        if (!opts.keepUnfinished)
          await release(
            jobId,
            subjects[0].clientId,
            subjects.slice(1).map((s) => Number(s.id)),
          );
        const pipeline = redis.multi();
        for (const s of subjects) {
          pipeline.decr(countKey(s, windows.day.period));
          pipeline.decr(countKey(s, windows.month.period));
        }
        await pipeline.exec();
      },
    };
  }

  return {
    /**
     * Counts a job against its subjects (the client first, then its brands), or refuses it when a bound is full or,
     * with `fairBound` (the deployment's bound, given while it is nearly reached), when the client holds its share
     * of it. A subject whose unfinished bound refused it is reconciled from the job records (at most every few
     * seconds) and the job asked once more, so a lost removal never keeps a client at its bound.
     */
    async admit(jobId: string, subjects: QuotaSubject[], fairBound = 0): Promise<Admission> {
      const first = await take(jobId, subjects, fairBound);
      if (first.verdict !== 'bound_full' && first.verdict !== 'fair_share') return first;
      const stale = subjects.filter(
        (s, i) =>
          (i === 0 && first.verdict === 'fair_share') ||
          first.states.some((st) => st.subject === s && st.bound === 'unfinished' && st.full),
      );
      const reconciled = await Promise.all(stale.map(reconcileSpaced));
      return reconciled.some(Boolean) ? take(jobId, subjects, fairBound) : first;
    },

    /** A job that ended: out of its client's and brands' unfinished sets (again is no harm). */
    release,

    /** What a subject has used now: its unfinished jobs (reconciled, at most every few seconds) and its windows. */
    async usage(subject: Pick<QuotaSubject, 'kind' | 'id' | 'clientId'>) {
      await reconcileSpaced(subject);
      const windows = windowsAt(clock.date());
      const [unfinished, day, month] = await Promise.all([
        redis.zcard(unfinishedKey(subject)),
        redis.get(countKey(subject, windows.day.period)),
        redis.get(countKey(subject, windows.month.period)),
      ]);
      return {
        unfinished,
        day: { used: Number(day ?? 0), resetsAt: new Date(windows.day.end) },
        month: { used: Number(month ?? 0), resetsAt: new Date(windows.month.end) },
      };
    },

    /**
     * Reconciles some of the clients counted busy (the start sweep calls it): a client whose last job's removal was
     * lost would otherwise stay busy, and shrink everyone's fair share, until it met its own bound.
     */
    async reconcileBusy(count = 10): Promise<void> {
      const clients = await redis.srandmember(BUSY_CLIENTS, count);
      for (const id of clients) await reconcileSpaced({ kind: 'client', id, clientId: id });
    },
  };
}

export type JobQuotas = ReturnType<typeof createJobQuotas>;

/** Each bound's RateLimit policy name and refusal code, for a client's and for a brand's. */
const POLICIES: Record<QuotaSubject['kind'], Record<keyof CountedBounds, { policy: string; code: ErrorCode }>> = {
  client: {
    unfinished: { policy: 'jobs-unfinished', code: 'job_unfinished_limit' },
    day: { policy: 'jobs-day', code: 'job_daily_quota' },
    month: { policy: 'jobs-month', code: 'job_monthly_quota' },
  },
  brand: {
    unfinished: { policy: 'brand-jobs-unfinished', code: 'brand_job_unfinished_limit' },
    day: { policy: 'brand-jobs-day', code: 'brand_job_daily_quota' },
    month: { policy: 'brand-jobs-month', code: 'brand_job_monthly_quota' },
  },
};

/** The codes of the refusals by a client's or a brand's bound. */
export const JOB_QUOTA_CODES: readonly ErrorCode[] = Object.values(POLICIES).flatMap((bounds) =>
  Object.values(bounds).map((b) => b.code),
);

/** The order the fields list the policies in, and a refusal prefers (the longest wait first). */
const BY_WAIT: (keyof CountedBounds)[] = ['month', 'day', 'unfinished'];

/**
 * The RateLimit-Policy and RateLimit fields of a submit's answer (draft-ietf-httpapi-ratelimit-headers): a policy
 * per bound of the client (`"jobs-unfinished";q=10`, `"jobs-day";q=1000;w=86400`, `"jobs-month";q=20000;w=<the
 * month's seconds>`) and, for a job submitted for brands, per bound of the brands (`"brand-jobs-..."`, the brand
 * closest to running out); r is what is left, t the seconds until the window starts again (none for the unfinished
 * jobs, which free up as jobs end).
 */
export function quotaFields(admission: Pick<Admission, 'states'>): Record<string, string> | null {
  const shown: RateLimitState[] = [];
  for (const kind of ['client', 'brand'] as const) {
    for (const bound of [...BY_WAIT].reverse()) {
      const tightest = admission.states
        .filter((s) => s.subject.kind === kind && s.bound === bound)
        .sort((a, b) => a.max - a.count - (b.max - b.count))[0];
      if (!tightest) continue;
      shown.push({
        policy: POLICIES[kind][bound].policy,
        max: tightest.max,
        remaining: Math.max(0, tightest.max - tightest.count),
        seconds: tightest.windowSeconds,
        resetSeconds: tightest.resetSeconds,
      });
    }
  }
  return shown.length ? rateLimitFields(shown) : null;
}

/** Why a bound refused a job: the client's or the brand's words for it. */
function refusalDetail(state: BoundState): string {
  const who = state.subject.kind === 'client' ? 'This client' : `Brand ${state.subject.id}`;
  if (state.bound === 'unfinished')
    return `${who} has ${state.count} unfinished jobs, its bound (${state.max} at once); retry when one has ended`;
  const window = state.bound === 'day' ? 'UTC day' : 'UTC month';
  return `${who} has used its ${state.max} jobs of this ${window}; more are accepted in ${state.resetSeconds} s`;
}

/**
 * The refusal of a job its bounds did not admit: 429 with the code of the bound with the longest wait and
 * Retry-After (the end of the day's or month's window, or `unfinishedRetryAfter` for the unfinished jobs), or past
 * the fair share 503 `job_fair_share` (the deployment's bound is nearly reached and this client holds its share).
 */
export function quotaRefusal(
  admission: Pick<Admission, 'verdict' | 'states' | 'share'>,
  unfinishedRetryAfter: number,
  fairBound: number,
): AppError {
  if (admission.verdict === 'fair_share') {
    const err = new AppError(
      503,
      `Service busy: the ${fairBound} jobs all clients may have unfinished are nearly reached, and this client ` +
        `holds its share of them (${admission.share}); retry later`,
      { code: 'job_fair_share' },
      { 'Retry-After': String(unfinishedRetryAfter) },
    );
    err.shed = true;
    httpRequestsShed.inc({ reason: 'job_fair_share' });
    return err;
  }
  const full = admission.states.filter((s) => s.full);
  const first = BY_WAIT.flatMap((bound) => full.filter((s) => s.bound === bound))[0];
  const retryAfter = Math.max(...full.map((s) => s.resetSeconds ?? unfinishedRetryAfter));
  return AppError.tooManyRequests(refusalDetail(first), retryAfter, POLICIES[first.subject.kind][first.bound].code);
}

import { AppError } from '../lib/errors';
import { httpRequestsShed, jobsUnfinished } from '../lib/metrics';
import { JobModel } from './job.model';

/** The states of a job that still takes the workers' time: a paused job waits for its client, not for capacity. */
const WORKING_STATES = ['queued', 'processing', 'running'];
/** A count older than this is read again, in the background: an admitted submit never waits for it. */
export const REFRESH_AFTER_MS = 2000;
/** A count older than this (after a quiet spell) is not used: the submit waits for a new one. */
const USABLE_FOR_MS = 60_000;

export interface JobBacklogLimits {
  /** Unfinished jobs of all tenants past which a submit is refused (0: no bound). */
  maxUnfinished: number;
  /** What a refusal's Retry-After says. */
  retryAfterSeconds: number;
  /**
   * The last part of the bound (percent, rounded up) kept for tenants under their fair share: a count within it of the
   * bound is `nearlyFull` (0: never).
   */
  fairShareReservePercent?: number;
}

/**
 * The bound on work accepted but not done (docs/performance.md, "Load"). A submit is refused with 503 and
 * Retry-After while the deployment's unfinished jobs reach the bound, before anything is recorded, so an overload
 * cannot leave a backlog that keeps the workers, and every tenant's reads, busy long after the load drops back.
 * The count is read from the job records in the background, at most once every REFRESH_AFTER_MS while submits come
 * (off the submit's path: an engine that cannot answer it from an index reads every job record, docs/performance.md),
 * and raised by
 * every submit this process accepts, so a burst cannot pass the bound. Between two reads a count only rises: a job
 * that ends makes room at the next read. A refusal is made on a count read within REFRESH_AFTER_MS only: counts are
 * read while submits come, so after a quiet spell the last one may be from before the jobs ended (most likely what
 * once refused the fault matrix's first submit after its overload case). Several API processes each add their own
 * submits to a shared count: the bound can be passed by at most one interval's submits of the others.
 */
export function createJobBacklog(limits: JobBacklogLimits) {
  let counted: { at: number; unfinished: number } | null = null;
  let reading: Promise<void> | null = null;
  /** Submits accepted while a read is in flight: the read may not see their records. */
  let acceptedDuringRead = 0;
  // Made once, as at the HTTP edge: a refusal's stack trace is the costliest part of it.
  const refusal = AppError.overloaded(
    `Service busy (${limits.maxUnfinished} jobs are waiting or running); retry later`,
    limits.retryAfterSeconds,
  );

  function read(): Promise<void> {
    if (reading) return reading;
    acceptedDuringRead = 0;
    reading = JobModel.countDocuments({ status: { $in: WORKING_STATES } })
      .setOptions({ allTenants: true })
      .then((unfinished) => {
        jobsUnfinished.set(unfinished);
        counted = { at: performance.now(), unfinished: unfinished + acceptedDuringRead };
      })
      .finally(() => (reading = null));
    return reading;
  }

  async function current(): Promise<{ at: number; unfinished: number }> {
    const age = counted ? performance.now() - counted.at : Infinity;
    if (age >= USABLE_FOR_MS) await read();
    else if (age >= REFRESH_AFTER_MS) void read().catch(() => undefined); // the next submit uses it
    return counted!;
  }

  const reserve = Math.ceil((limits.maxUnfinished * (limits.fairShareReservePercent ?? 0)) / 100);

  return {
    maxUnfinished: limits.maxUnfinished,

    /**
     * Throws the 503 while the unfinished jobs reach the bound; else answers whether they are within the fair-share
     * reserve of it (the tenants' bounds then also apply the fair share: job-quotas.ts). Counts nothing: `accepted`
     * does, once the tenant's bounds admitted the job too.
     */
    async check(): Promise<{ nearlyFull: boolean }> {
      if (limits.maxUnfinished <= 0) return { nearlyFull: false };
      let count = await current();
      if (count.unfinished >= limits.maxUnfinished && performance.now() - count.at >= REFRESH_AFTER_MS) {
        await read(); // the read current() started, shared by every submit that waits for it
        count = counted!;
      }
      if (count.unfinished >= limits.maxUnfinished) {
        httpRequestsShed.inc({ reason: 'job_backlog' });
        throw refusal;
      }
      return { nearlyFull: reserve > 0 && count.unfinished >= limits.maxUnfinished - reserve };
    },

    /** Counts a submit about to be recorded (after `check`), until the next read sees its record. */
    accepted(): void {
      if (limits.maxUnfinished <= 0 || !counted) return;
      counted.unfinished += 1;
      if (reading) acceptedDuringRead += 1;
    },
  };
}

export type JobBacklog = ReturnType<typeof createJobBacklog>;

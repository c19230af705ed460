import { AppError } from '../lib/errors';
import { httpRequestsShed, jobsUnfinished } from '../lib/metrics';
import { JobModel } from './job.model';

/** The states of a job that still takes the workers' time: a paused job waits for its client, not for capacity. */
const WORKING_STATES = ['queued', 'processing', 'running'];
/** How long one count of the unfinished jobs is used: the bound reads the job records at most once per interval. */
const COUNT_TTL_MS = 1000;

export interface JobBacklogLimits {
  /** Unfinished jobs of all tenants past which a submit is refused (0: no bound). */
  maxUnfinished: number;
  /** What a refusal's Retry-After says. */
  retryAfterSeconds: number;
}

/**
 * The bound on work accepted but not done (docs/performance.md, "Load"). A submit is refused with 503 and
 * Retry-After while the deployment's unfinished jobs reach the bound, before anything is recorded, so an overload
 * cannot leave a backlog that keeps the workers, and every tenant's reads, busy long after the load drops back.
 * The count is read from the job records at most once a second (one read for all the submits meanwhile) and
 * raised by every submit this process accepts until the next read, so a burst inside one interval cannot pass
 * the bound. Several API processes each add their own submits to a shared count: the bound can be passed by
 * at most one interval's submits of the others.
 */
export function createJobBacklog(limits: JobBacklogLimits) {
  let counted: { at: number; unfinished: number } | null = null;
  let reading: Promise<{ at: number; unfinished: number }> | null = null;
  // Made once, as at the HTTP edge: a refusal's stack trace is the costliest part of it.
  const refusal = AppError.overloaded(
    `Service busy (${limits.maxUnfinished} jobs are waiting or running); retry later`,
    limits.retryAfterSeconds,
  );

  async function current(): Promise<{ at: number; unfinished: number }> {
    if (counted && performance.now() - counted.at < COUNT_TTL_MS) return counted;
    reading ??= JobModel.countDocuments({ status: { $in: WORKING_STATES } })
      .setOptions({ allTenants: true })
      .then((unfinished) => {
        jobsUnfinished.set(unfinished);
        return (counted = { at: performance.now(), unfinished });
      })
      .finally(() => (reading = null));
    return reading;
  }

  return {
    /** Throws the 503 while the unfinished jobs reach the bound; else counts the submit about to be recorded. */
    async admit(): Promise<void> {
      if (limits.maxUnfinished <= 0) return;
      const count = await current();
      if (count.unfinished >= limits.maxUnfinished) {
        httpRequestsShed.inc({ reason: 'job_backlog' });
        throw refusal;
      }
      count.unfinished += 1;
    },
  };
}

export type JobBacklog = ReturnType<typeof createJobBacklog>;

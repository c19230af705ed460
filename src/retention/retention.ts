import { ActivityEventModel } from '../activity/activity-event.model';
import { SessionModel } from '../auth/session.model';
import { RelayUsageModel } from '../integrations/integration.model';
import { FINAL_STATES, JobItemModel, JobModel } from '../jobs/job.model';
import { JobResourceModel, jobResourcesOf } from '../idap/resource.model';
import { OutboxMessageModel } from '../notifications/outbox.model';

const DAY_MS = 86_400_000;
/** Finished jobs whose items are removed in one step: a bounded `$in`, and progress between steps. */
const JOBS_PER_STEP = 200;

/** How many days each kind of record is kept (0: for good). docs/operations.md, "Retention". */
export interface RetentionPolicy {
  outboxDays: number;
  sessionsDays: number;
  activityDays: number;
  relayUsageDays: number;
  jobItemsDays: number;
}

export type PurgeCounts = Record<
  'outbox_messages' | 'sessions' | 'activity_events' | 'relay_usage' | 'job_items',
  number
>;

/** The policy of the RETENTION_* settings. */
export function retentionPolicyOf(config: {
  RETENTION_OUTBOX_DAYS: number;
  RETENTION_SESSIONS_DAYS: number;
  RETENTION_ACTIVITY_DAYS: number;
  RETENTION_RELAY_USAGE_DAYS: number;
  RETENTION_JOB_ITEMS_DAYS: number;
}): RetentionPolicy {
  return {
    outboxDays: config.RETENTION_OUTBOX_DAYS,
    sessionsDays: config.RETENTION_SESSIONS_DAYS,
    activityDays: config.RETENTION_ACTIVITY_DAYS,
    relayUsageDays: config.RETENTION_RELAY_USAGE_DAYS,
    jobItemsDays: config.RETENTION_JOB_ITEMS_DAYS,
  };
}

/** Runs `purge` with the time before which records go, unless the kind is kept for good (0 days). */
async function olderThan(days: number, now: Date, purge: (cutoff: Date) => Promise<number>): Promise<number> {
  return days > 0 ? purge(new Date(now.getTime() - days * DAY_MS)) : 0;
}

/**
 * The items (results and progress) of jobs that finished before `cutoff`, and their lists of the resources they
 * wrote (idap_job_resources), a batch of jobs at a time; the jobs themselves stay (their status and counts), and
 * their lead data stays in the resource layer.
 */
async function purgeJobItems(cutoff: Date): Promise<number> {
  let removed = 0;
  let after = '';
  for (;;) {
    const jobs = await JobModel.find(
      { status: { $in: FINAL_STATES }, completed_at: { $lt: cutoff }, _id: { $gt: after } },
      { _id: 1, client_id: 1 },
    )
      .setOptions({ allTenants: true }) // every tenant's finished jobs
      .sort({ _id: 1 })
      .limit(JOBS_PER_STEP)
      .lean<{ _id: string; client_id: string }[]>();
    if (jobs.length === 0) return removed;
    // Each item is matched by its own job.
    const { deletedCount } = await JobItemModel.deleteMany({
      client_id: { $in: [...new Set(jobs.map((j) => j.client_id))] },
      job_id: { $in: jobs.map((j) => j._id) },
    });
    // And the job's list of the resources it wrote (one _id range per job).
    const ledgers = await Promise.all(jobs.map((j) => JobResourceModel.deleteMany(jobResourcesOf(j.client_id, j._id))));
    removed += deletedCount + ledgers.reduce((n, r) => n + r.deletedCount, 0);
    after = jobs[jobs.length - 1]._id;
  }
}

/** Removes what has outlived its policy, as of `now`; answers how many records of each kind went. */
export async function purgeExpired(policy: RetentionPolicy, now: Date): Promise<PurgeCounts> {
  const deleted = (r: { deletedCount: number }) => r.deletedCount;
  return {
    outbox_messages: await olderThan(policy.outboxDays, now, (cutoff) =>
      OutboxMessageModel.deleteMany({ created_at: { $lt: cutoff } }).then(deleted),
    ),
    sessions: await olderThan(policy.sessionsDays, now, (cutoff) =>
      SessionModel.deleteMany({ $or: [{ expires_at: { $lt: cutoff } }, { revoked_at: { $lt: cutoff } }] }).then(
        deleted,
      ),
    ),
    activity_events: await olderThan(policy.activityDays, now, (cutoff) =>
      ActivityEventModel.deleteMany({ at: { $lt: cutoff } })
        .setOptions({ allTenants: true })
        .then(deleted),
    ),
    relay_usage: await olderThan(policy.relayUsageDays, now, (cutoff) =>
      RelayUsageModel.deleteMany({ at: { $lt: cutoff } })
        .setOptions({ allTenants: true })
        .then(deleted),
    ),
    job_items: await olderThan(policy.jobItemsDays, now, purgeJobItems),
  };
}

import { purgeActivityBefore } from '../activity/record-writes';
import { sessionStore } from '../auth/sessions';
import { purgeRelayUsageBefore } from '../integrations/usage';
import { dropJobResourceLists } from '../idap/resources/resource-writes';
import { jobItems } from '../jobs/job-records';
import { purgeOutboxBefore } from '../notifications/outbox.service';

const DAY_MS = 86_400_000;

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

/** Removes what has outlived its policy, as of `now`; answers how many records of each kind went. */
export async function purgeExpired(policy: RetentionPolicy, now: Date): Promise<PurgeCounts> {
  // Each kind is purged by the area that keeps it.
  return {
    outbox_messages: await olderThan(policy.outboxDays, now, purgeOutboxBefore),
    sessions: await olderThan(policy.sessionsDays, now, sessionStore.purgeEndedBefore),
    activity_events: await olderThan(policy.activityDays, now, purgeActivityBefore),
    relay_usage: await olderThan(policy.relayUsageDays, now, purgeRelayUsageBefore),
    // With each batch of jobs, the idap area drops its lists of the resources they wrote.
    job_items: await olderThan(policy.jobItemsDays, now, (cutoff) =>
      jobItems.purgeItemsOfJobsFinishedBefore(cutoff, dropJobResourceLists),
    ),
  };
}

import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  ParentClosePolicy,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  startChild,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Activities } from '../activities';
import type { JobEvent } from '../src/events/event-bus';
import {
  jobIndexWorkflowId,
  jobWebhookWorkflowId,
  type JobInputBase,
  type JobOutcome,
  type MapsScrapeInput,
  type RetryTuning,
} from './jobs-signals';

/** How long a job cancelled before it began waits for its run's cancel request. */
const CANCEL_REQUEST_GRACE = '1 minute';

/** Retries whose interval doubles from the tuning's first one (1 s unless tuned) up to `maximumInterval`. */
const doublingRetry = (t: RetryTuning = {}, maximumInterval: Duration, maximumAttempts: number): RetryPolicy => ({
  initialInterval: t.initial_ms ?? 1000,
  backoffCoefficient: 2,
  maximumInterval,
  maximumAttempts,
});

/**
 * The job activities with the job's retry policy: 429/5xx are retried with backoff, other 4xx fail at
 * once. The provider work (a location, a company) runs as regular activities, visible in the Temporal
 * UI, heartbeating, retried on any worker; the short bookkeeping steps (start, finish) run as local
 * activities inside the workflow task, which saves the server several round trips per job.
 */
export function jobActivities(t: RetryTuning = {}) {
  const retry = doublingRetry(t, '1 minute', t.max_attempts ?? 8);
  const remote = proxyActivities<Activities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: t.heartbeat_timeout_ms ?? 60_000,
    retry,
  });
  const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute', retry });
  return {
    scrapeLocations: remote.scrapeLocations,
    researchCompany: remote.researchCompany,
    startMapsJob: local.startMapsJob,
    startResearchJob: local.startResearchJob,
    finishJob: local.finishJob,
  };
}

/**
 * The message of the innermost cause: "maps provider: request rejected (403)..." rather than "Activity task
 * failed".
 */
export function failureReason(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  let message = e?.message ?? String(err);
  while (e?.cause) {
    e = e.cause as typeof e;
    if (e?.message) message = e.message;
  }
  return message;
}

/** Hands an event to the job's webhook: a child workflow delivers it with retries, without holding up the job. */
export async function notifyWebhook(input: JobInputBase, event: JobEvent | null | undefined) {
  if (!input.webhook_url || !event) return;
  await startChild(jobWebhookWorkflow, {
    workflowId: jobWebhookWorkflowId(input.job_id, event.event),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [{ url: input.webhook_url, client_id: input.client_id, event, retry: input.retry }],
  });
}

/**
 * The first run's start: job.queued and job.started to the webhook; null when the job was cancelled before it
 * began.
 */
export async function beginJob(
  input: JobInputBase,
  start: () => Promise<{ proceed: boolean; total: number; event: JobEvent | null }>,
): Promise<number | null> {
  await notifyWebhook(input, input.queued_event);
  const started = await start();
  await notifyWebhook(input, started.event);
  return started.proceed ? started.total : null;
}

/**
 * Indexes every resource the job wrote, again, in a workflow of its own that the job does not wait for
 * (`<job_id>-index` in the Temporal UI): the safety net of the job's index feed, which made them searchable
 * before job.completed. It catches a feed step that failed, an attempt that died before its step ran, a
 * cancelled job, and activities scheduled before the feed (docs/idap.md, "From job to searchable").
 */
async function indexResults(input: JobInputBase) {
  if (input.index_results === false) return;
  await startChild(jobIndexWorkflow, {
    workflowId: jobIndexWorkflowId(input.job_id),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [{ job_id: input.job_id, client_id: input.client_id, retry: input.retry }],
  });
}

/** Indexes a job's resources for search (see indexResults). */
export async function jobIndexWorkflow(
  input: Pick<JobInputBase, 'job_id' | 'client_id' | 'retry'>,
): Promise<{ indexed: number }> {
  const { indexJobResults } = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: doublingRetry(input.retry, '5 minutes', 20),
  });
  return indexJobResults({ job_id: input.job_id, client_id: input.client_id });
}

/** Since this change a job starts its index feed and its webhook together (endJob). */
const FEED_WITH_WEBHOOK = 'index-feed-with-webhook';
/** Since this change a job whose index feeds took everything it stored starts no follow-up index workflow. */
const FED_WITHOUT_FOLLOW_UP = 'fed-job-without-index-follow-up';

/**
 * A job's last steps: its final state and event (`finish`), then its follow-up index workflow and that event's
 * webhook, started together (one round trip to Temporal for both, the follow-up first), so the follow-up does not
 * wait for the webhook's child to start (docs/idap.md, "From job to searchable"). Runs started before this
 * (webhook, then follow-up) keep that order on replay. A job whose feeds indexed everything it stored (`fed`)
 * needs no follow-up: it would only read the job's resources again and find nothing to write.
 */
async function endJob(
  input: JobInputBase,
  finish: () => Promise<JobEvent | null>,
  fed = false,
): Promise<JobEvent | null> {
  const event = await finish();
  // Asked only when fed: histories from before this change (whose activities never answered `indexed`) replay as
  // they ran, and a run a worker without this change went on with gets its follow-up on replay too (no marker).
  const followUp = !(fed && patched(FED_WITHOUT_FOLLOW_UP));
  if (patched(FEED_WITH_WEBHOOK)) {
    await Promise.all([followUp && indexResults(input), notifyWebhook(input, event)]);
  } else {
    await notifyWebhook(input, event);
    if (followUp) await indexResults(input);
  }
  return event;
}

/**
 * The common end of every job: on success the final state and job.completed; on cancellation (even
 * while an activity runs) job.failed with status cancelled, written outside the cancelled scope; on
 * failure the reason, job.failed, and a failed workflow run in the Temporal UI.
 */
export async function runJob(
  input: JobInputBase,
  body: () => Promise<{ results_count?: number; fed?: boolean } | false>,
): Promise<JobOutcome> {
  const acts = jobActivities(input.retry);
  const ref = { job_id: input.job_id, client_id: input.client_id };
  try {
    // body() answers false when the job was cancelled before it could start.
    const done = await body();
    if (done === false) {
      // Only a cancel makes a run find its job final before it began (runs start for queued jobs
      // only). The API stored that cancel and is about to cancel this run: wait for it (a minute at
      // most, should it never come), so that the run ends cancelled like its job, in the Temporal UI too.
      await sleep(CANCEL_REQUEST_GRACE);
    }
    const status = done ? 'completed' : 'cancelled';
    const results_count = done ? done.results_count : undefined;
    const fed = done !== false && done.fed === true;
    const ev = await endJob(input, () => acts.finishJob({ ...ref, status, results_count }), fed);
    return { status, results_count: ev?.data.results_count };
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        // The feed last here: the cancelled activity may still be storing what it had found.
        await notifyWebhook(input, await acts.finishJob({ ...ref, status: 'cancelled' }));
        await indexResults(input); // what it found before the cancel is kept, and searchable
      });
      throw err;
    }
    const reason = failureReason(err);
    await endJob(input, () => acts.finishJob({ ...ref, status: 'failed', error: reason }));
    throw ApplicationFailure.nonRetryable(reason, 'JobFailed');
  }
}

/** Locations one activity searches (one after the other, checkpointed by heartbeats). */
export const LOCATIONS_PER_ACTIVITY = 10;

/**
 * A maps-scrape job: searches its locations one after the other (so max_results is exact), a batch
 * per activity, and stops once max_results businesses are stored. Long jobs continue as new to keep
 * their history small.
 */
export async function mapsScrapeWorkflow(input: MapsScrapeInput): Promise<JobOutcome> {
  const acts = jobActivities(input.retry);
  const ref = { job_id: input.job_id, client_id: input.client_id };
  return runJob(input, async () => {
    let { index = 0, results_count: count = 0 } = input.resume ?? {};
    // Whether every resource stored so far went through an index feed that indexed it (see endJob).
    let fed = input.resume ? input.resume.fed === true : true;
    const total = input.resume?.total ?? (await beginJob(input, () => acts.startMapsJob(ref)));
    if (total === null) return false;
    const cap = input.params.max_results ?? Infinity;
    while (index < total && count < cap) {
      if (workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof mapsScrapeWorkflow>({
          ...input,
          queued_event: null,
          resume: { index, total, results_count: count, fed },
        });
      }
      const to = Math.min(total, index + LOCATIONS_PER_ACTIVITY);
      const step = await acts.scrapeLocations({
        ...ref,
        params: input.params,
        from: index,
        to,
        total,
        count,
        index: input.index_results !== false,
      });
      ({ results_count: count, next: index } = step);
      fed &&= step.indexed === true;
    }
    return { results_count: count, fed };
  });
}

/** Delivers one job event to a webhook_url, at least once (the activity is retried until the receiver takes it). */
export async function jobWebhookWorkflow(input: {
  url: string;
  client_id: string;
  event: JobEvent;
  retry?: RetryTuning;
}): Promise<{ status: number }> {
  const { deliverJobWebhook } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: doublingRetry(input.retry, '10 minutes', 20),
  });
  return deliverJobWebhook({ url: input.url, client_id: input.client_id, event: input.event });
}

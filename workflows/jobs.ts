import {
  ApplicationFailure, CancellationScope, ContinueAsNew, ParentClosePolicy, continueAsNew, isCancellation, proxyActivities, startChild, workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { JobEvent } from '../src/events/event-bus';
import type { JobInputBase, JobOutcome, MapsScrapeInput, RetryTuning } from './jobs-signals';

/** The job activities with the job's retry policy: 429/5xx are retried with backoff, other 4xx fail at once. */
export function jobActivities(t: RetryTuning = {}) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: t.heartbeat_timeout_ms ?? 60_000,
    retry: { initialInterval: t.initial_ms ?? 1000, backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: t.max_attempts ?? 8 },
  });
}

/** The message of the innermost cause: "maps provider: request rejected (403)..." rather than "Activity task failed". */
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
    workflowId: `${input.job_id}-webhook-${event.event}`,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [{ url: input.webhook_url, client_id: input.client_id, event, retry: input.retry }],
  });
}

/** The first run's start: job.queued and job.started to the webhook; null when the job was cancelled before it began. */
export async function beginJob(input: JobInputBase, start: () => Promise<{ proceed: boolean; total: number; event: JobEvent | null }>): Promise<number | null> {
  await notifyWebhook(input, input.queued_event);
  const started = await start();
  await notifyWebhook(input, started.event);
  return started.proceed ? started.total : null;
}

/**
 * The common end of every job: on success the final state and job.completed; on cancellation (even
 * while an activity runs) job.failed with status cancelled, written outside the cancelled scope; on
 * failure the reason, job.failed, and a failed workflow run in the Temporal UI.
 */
export async function runJob(input: JobInputBase, body: () => Promise<boolean>): Promise<JobOutcome> {
  const acts = jobActivities(input.retry);
  const ref = { job_id: input.job_id, client_id: input.client_id };
  try {
    // body() answers false when the job was cancelled before it could start.
    const status = (await body()) ? 'completed' : 'cancelled';
    const ev = await acts.finishJob({ ...ref, status });
    await notifyWebhook(input, ev);
    return { status, results_count: ev?.data.results_count };
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => notifyWebhook(input, await acts.finishJob({ ...ref, status: 'cancelled' })));
      throw err;
    }
    const reason = failureReason(err);
    await notifyWebhook(input, await acts.finishJob({ ...ref, status: 'failed', error: reason }));
    throw ApplicationFailure.nonRetryable(reason, 'JobFailed');
  }
}

/**
 * A maps-scrape job: searches its locations one after the other (so max_results is exact) and stops
 * early once max_results businesses are stored. Long jobs continue as new to keep history small.
 */
export async function mapsScrapeWorkflow(input: MapsScrapeInput): Promise<JobOutcome> {
  const acts = jobActivities(input.retry);
  const ref = { job_id: input.job_id, client_id: input.client_id };
  return runJob(input, async () => {
    let { index = 0, results_count: count = 0 } = input.resume ?? {};
    const total = input.resume?.total ?? (await beginJob(input, () => acts.startMapsJob(ref)));
    if (total === null) return false;
    const cap = input.params.max_results ?? Infinity;
    for (; index < total && count < cap; index++) {
      if (workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof mapsScrapeWorkflow>({ ...input, queued_event: null, resume: { index, total, results_count: count } });
      }
      ({ results_count: count } = await acts.scrapeLocation({ ...ref, params: input.params, index, total }));
    }
    return true;
  });
}

/** Delivers one job event to a webhook_url, at least once (the activity is retried until the receiver takes it). */
export async function jobWebhookWorkflow(input: { url: string; client_id: string; event: JobEvent; retry?: RetryTuning }): Promise<{ status: number }> {
  const { deliverJobWebhook } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: input.retry?.initial_ms ?? 1000, backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 20 },
  });
  return deliverJobWebhook({ url: input.url, client_id: input.client_id, event: input.event });
}

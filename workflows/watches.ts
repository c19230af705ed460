import {
  SearchAttributeType,
  WorkflowExecutionAlreadyStartedError,
  defineSearchAttributeKey,
} from '@temporalio/common';
import {
  ChildWorkflowFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { mapsScrapeWorkflow, notifyWebhook } from './jobs';
import { jobWorkflowId, type JobRun } from './jobs-signals';
import { researchWorkflow } from './research';
import type { WatchRunInput, WatchRunOutcome } from './watches-api';

/** The time a schedule started a run for, which Temporal sets on every run a schedule starts. */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

const retry: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 20,
};
const { startWatchRun, finishWatchRun } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry });
const { awaitJobEnd } = proxyActivities<Activities>({
  startToCloseTimeout: '30 days',
  heartbeatTimeout: '1 minute',
  retry,
});

/**
 * Runs the job's workflow as this run's child, with the job's id as its workflow id like every job's, and waits for
 * its end, however it ends (completed, failed, cancelled by its job's cancel operation). The child outlives this run
 * if it is stopped (ABANDON): a job ends as its own workflow says. A run started again finds the job's workflow
 * started already and waits for the job's record instead.
 */
async function runJobToEnd(run: JobRun): Promise<void> {
  const options = {
    workflowId: jobWorkflowId(run.input.job_id),
    taskQueue: run.taskQueue,
    memo: run.memo,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  };
  let ended: Promise<unknown>;
  try {
    ended = (
      run.type === 'research'
        ? await startChild(researchWorkflow, { ...options, args: [run.input] })
        : await startChild(mapsScrapeWorkflow, { ...options, args: [run.input] })
    ).result();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    await awaitJobEnd({ job_id: run.input.job_id, client_id: run.input.client_id, job_type: run.type });
    return;
  }
  try {
    await ended;
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure)) throw err; // a failed or cancelled job: its leads count all the same
  }
}

/**
 * One run of a watch, started by its schedule (or triggerWatch): records the run's job through the jobs area (its
 * id derived from this run's workflow id, so a retried step makes no second job), runs it to its end, then counts the
 * leads it saw first and announces them (watch.new_leads on the event stream, and to the watch's webhook). A watch
 * that was deleted, or a client deactivated, makes the run do nothing.
 */
export async function watchRunWorkflow(input: WatchRunInput): Promise<WatchRunOutcome> {
  const info = workflowInfo();
  const scheduledAt = (info.typedSearchAttributes.get(SCHEDULED_START) ?? info.startTime).toISOString();
  // The run is this execution, not its workflow id: Temporal names a schedule's runs by the second they were taken
  // in, so a run triggered while one triggered that same second was going runs under the same workflow id, and
  // deriving its job from the id alone made it take the earlier run's job for its own (and never run).
  const runId = `${info.workflowId}/${info.runId}`;
  const start = await startWatchRun({ ...input, run_id: runId, scheduled_at: scheduledAt });
  if (!start.job) return { status: 'skipped', reason: start.reason };
  const run = start.job;
  await runJobToEnd(run);
  const end = await finishWatchRun({
    ...input,
    job_id: run.input.job_id,
    job_type: run.type,
    scheduled_at: scheduledAt,
  });
  await notifyWebhook(run.input, end.event);
  return { status: end.status, job_id: run.input.job_id, new_leads_count: end.new_leads_count };
}

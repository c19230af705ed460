import type { Client } from '@temporalio/client';
import type { JobEvent } from '../events/event-bus';
import { startWorkflow, withinDeadline } from '../lib/engines/temporal';
import { mapsScrapeWorkflow } from '../../workflows/jobs';
import { researchWorkflow } from '../../workflows/research';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { jobWorkflowId, type JobInputBase, type JobRun, type RetryTuning } from '../../workflows/jobs-signals';
import type { JobDoc } from './job.model';
import type { MapsJobParams } from './maps-scrape';

export interface JobRunTuning {
  retry: RetryTuning;
  /** False to keep job results out of the search index. */
  indexResults: boolean;
}

/**
 * The calls every job's run takes from the API, by workflow function and shared definitions: its start and its
 * cancellation. A run's id is its job's id; research adds pause and resume (research.workflows.ts).
 */
export function createJobWorkflows(temporal: Client, taskQueue: string, tuning: JobRunTuning) {
  /** What a job's workflow is started with, wherever it is started from (here, or a watch's run as its child). */
  function runOf(doc: JobDoc, queued: JobEvent | null): JobRun {
    const input: JobInputBase = {
      job_id: doc._id,
      client_id: doc.client_id,
      webhook_url: doc.webhook_url,
      retry: tuning.retry,
      queued_event: queued,
      index_results: tuning.indexResults,
    };
    const memo = { client_id: doc.client_id, job_type: doc.type };
    return doc.type === 'research'
      ? { type: 'research', taskQueue, memo, input }
      : { type: 'maps-scrape', taskQueue, memo, input: { ...input, params: doc.params as unknown as MapsJobParams } };
  }

  return {
    runOf,

    /**
     * Starts the job's run, or joins it: a job whose run is running or has run already (a sweep after a start
     * that seemed to fail) is left as it is, so starting twice never runs a job twice.
     */
    async start(doc: JobDoc, queued: JobEvent | null): Promise<void> {
      const run = runOf(doc, queued);
      const options = {
        taskQueue: run.taskQueue,
        workflowId: jobWorkflowId(doc._id),
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: run.memo,
        typedSearchAttributes: searchAttributesOf({ clientId: doc.client_id, jobType: doc.type }),
      } as const;
      if (run.type === 'research') {
        await startWorkflow(temporal, researchWorkflow, { ...options, args: [run.input] }, { once: true });
      } else {
        await startWorkflow(temporal, mapsScrapeWorkflow, { ...options, args: [run.input] }, { once: true });
      }
    },

    /** Cancels the job's run (it ends cancelled, keeping what it found). */
    async cancel(jobId: string): Promise<void> {
      await withinDeadline(temporal, () => temporal.workflow.getHandle(jobWorkflowId(jobId)).cancel());
    },
  };
}

export type JobWorkflows = ReturnType<typeof createJobWorkflows>;

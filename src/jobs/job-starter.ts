import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { EventBus, JobEvent } from '../events/event-bus';
import { newId } from '../lib/ids';
import type { Logger } from '../lib/logger';
import type { RetryTuning } from '../../workflows/jobs-signals';
import { JobModel, type JobDoc, type JobType } from './job.model';
import { eventData } from './job.views';
import { createInsertBatcher } from './insert-batcher';

export interface JobStarterDeps {
  temporal: Client;
  taskQueue: string;
  events: EventBus;
  retry: RetryTuning;
  logger: Logger;
  /** False to keep job results out of the search index. */
  indexResults?: boolean;
  /** A queued job whose workflow is not known to run after this long is started (again). */
  sweepAfterMs?: number;
}

const WORKFLOW = { 'maps-scrape': 'mapsScrapeWorkflow', research: 'researchWorkflow' } as const;

/**
 * Accepting a job and starting its workflow. The job record in MongoDB is the durable promise: a
 * submit stores it and announces it (job.queued), answers at once, and starts the workflow right
 * after. If that start fails (Temporal unreachable, the process dies), a sweep in every API process
 * starts the workflows of jobs still queued; a start is idempotent (the workflow id is the job id and
 * a repeated start joins the existing run), so starting twice never runs a job twice.
 */
export function createJobStarter(deps: JobStarterDeps) {
  const inFlight = new Set<Promise<void>>();
  const inserts = createInsertBatcher(JobModel);
  const sweepAfterMs = deps.sweepAfterMs ?? 10_000;

  async function start(doc: JobDoc, queued: JobEvent | null) {
    try {
      await deps.temporal.workflow.start(WORKFLOW[doc.type as JobType], {
        workflowId: doc._id,
        taskQueue: deps.taskQueue,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        memo: { client_id: doc.client_id, job_type: doc.type },
        args: [
          {
            job_id: doc._id,
            client_id: doc.client_id,
            webhook_url: doc.webhook_url,
            retry: deps.retry,
            queued_event: queued,
            index_results: deps.indexResults ?? true,
            ...(doc.type === 'maps-scrape' ? { params: doc.params } : {}),
          },
        ],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  function startSoon(doc: JobDoc, queued: JobEvent | null) {
    const p = start(doc, queued)
      .catch((err) => deps.logger.warn({ err, job_id: doc._id }, 'job workflow not started yet; the sweep will retry'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  async function sweep() {
    const stale = await JobModel.find(
      { status: 'queued', created_at: { $lt: new Date(Date.now() - sweepAfterMs) } },
      null,
      { allTenants: true },
    )
      .sort({ created_at: 1 })
      .limit(200)
      .lean<JobDoc[]>();
    for (const doc of stale)
      await start(doc, null).catch((err) => deps.logger.warn({ err, job_id: doc._id }, 'sweep could not start job'));
    return stale.length;
  }

  const timer = setInterval(() => void sweep().catch(() => undefined), Math.max(1000, sweepAfterMs));
  timer.unref();

  return {
    /** Records and announces a job, then starts its workflow without making the caller wait for Temporal. */
    async submit(
      type: JobType,
      clientId: string,
      params: Record<string, unknown>,
      opts: { webhookUrl?: string | null; createdBy?: string | null },
    ) {
      const now = new Date();
      const model = new JobModel({
        _id: newId(),
        client_id: clientId,
        type,
        status: 'queued',
        params,
        webhook_url: opts.webhookUrl ?? null,
        created_by: opts.createdBy ?? null,
        events_sent: ['job.queued'],
        created_at: now,
        updated_at: now,
      });
      await model.validate();
      const doc = model.toObject() as JobDoc;
      await inserts.insert(doc as unknown as Record<string, unknown>);
      let queued: JobEvent;
      try {
        queued = await deps.events.publish('job.queued', eventData(doc, 'job.queued', doc.created_at));
      } catch (err) {
        await JobModel.deleteOne({ _id: doc._id, client_id: clientId }); // not announced: as if never submitted
        throw err;
      }
      startSoon(doc, queued);
      return doc;
    },

    sweep,

    async close() {
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type JobStarter = ReturnType<typeof createJobStarter>;

import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { AppError } from '../lib/errors';
import { ClientModel } from '../clients/client.model';
import type { EventBus } from '../events/event-bus';
import { newId } from '../lib/ids';
import type { RetryTuning } from '../../workflows/jobs-signals';
import { JobModel, isFinal, type JobDoc, type JobType } from './job.model';
import { eventData } from './job.views';
import type { JobLocks } from './job-lock';

export interface JobControlDeps {
  temporal: Client;
  locks: JobLocks;
  taskQueue: string;
  events: EventBus;
  retry: RetryTuning;
}

const WORKFLOW = { 'maps-scrape': 'mapsScrapeWorkflow', research: 'researchWorkflow' } as const;

/**
 * The API side of jobs: records a job, announces it (job.queued) and starts its workflow, whose id
 * is the job id (a repeated start of the same id joins the running workflow instead of starting a
 * second one); and finds, cancels and signals jobs within the caller's tenancy.
 */
export function createJobControl(deps: JobControlDeps) {
  const handle = (jobId: string) => deps.temporal.workflow.getHandle(jobId);

  async function start(doc: JobDoc, extra: Record<string, unknown> = {}) {
    await deps.temporal.workflow.start(WORKFLOW[doc.type as JobType], {
      workflowId: doc._id,
      taskQueue: deps.taskQueue,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: { client_id: doc.client_id, job_type: doc.type },
      args: [{ job_id: doc._id, client_id: doc.client_id, webhook_url: doc.webhook_url, retry: deps.retry, ...extra }],
    });
  }

  return {
    async assertClient(clientId: string, isSuperAdmin: boolean) {
      if (isSuperAdmin && !(await ClientModel.exists({ _id: clientId }))) {
        throw AppError.invalid('X-Selected-Client-Id names no client', [{ location: 'header', field: 'X-Selected-Client-Id', message: 'unknown client' }]);
      }
    },

    /** Records, announces and starts a job; answers the stored job. */
    async submit(type: JobType, clientId: string, params: Record<string, unknown>, opts: { webhookUrl?: string | null; createdBy?: string | null; workflowArgs?: Record<string, unknown> }) {
      const doc = (await JobModel.create({
        _id: newId(), client_id: clientId, type, status: 'queued', params,
        webhook_url: opts.webhookUrl ?? null, created_by: opts.createdBy ?? null, events_sent: ['job.queued'],
      })).toObject() as JobDoc;
      let queued;
      try {
        queued = await deps.events.publish('job.queued', eventData(doc, 'job.queued', doc.created_at));
      } catch (err) {
        await JobModel.deleteOne({ _id: doc._id, client_id: clientId }); // not announced: as if never submitted
        throw err;
      }
      try {
        await start(doc, { ...opts.workflowArgs, ...(type === 'maps-scrape' ? { params } : {}), queued_event: queued });
      } catch (err) {
        const set = { status: 'failed', error: `The job could not be started: ${(err as Error).message}`, completed_at: new Date() };
        await JobModel.updateOne({ _id: doc._id, client_id: clientId, status: 'queued' }, { $set: set, $addToSet: { events_sent: 'job.failed' } });
        await deps.events.publish('job.failed', eventData({ ...doc, ...set }, 'job.failed')).catch(() => undefined);
        throw err;
      }
      return doc;
    },

    /** A job of this type within the tenancy (null scope: a super_admin seeing all clients), or 404. */
    async find(scope: string | null, jobId: string, type: JobType): Promise<JobDoc> {
      const filter = scope ? { _id: jobId, client_id: scope, type } : { _id: jobId, type };
      const doc = await JobModel.findOne(filter, null, scope ? {} : { allTenants: true }).lean<JobDoc>();
      if (!doc) throw AppError.notFound(type === 'research' ? 'Research job not found' : 'Job not found');
      return doc;
    },

    /**
     * Moves a job from one of `from` to a new state under its record lock (bumping its control
     * sequence, so the workflow can tell newer signals from older ones), then tells the workflow; if
     * Temporal cannot be told, the change is undone and the caller gets the error. Of two concurrent
     * requests (pause and pause, pause and cancel) exactly one sees the state it expects.
     */
    async transition(
      doc: JobDoc, from: string[], change: (current: JobDoc) => Record<string, unknown>, tell: (seq: number) => Promise<void>, describe: (status: string) => string,
    ): Promise<JobDoc> {
      const key = { _id: doc._id, client_id: doc.client_id };
      return deps.locks.run(doc._id, async () => {
        const current = await JobModel.findOne(key).lean<JobDoc>();
        if (!current || !from.includes(current.status)) throw AppError.conflict(describe(current?.status ?? doc.status));
        const set = change(current);
        const seq = current.control_seq + 1;
        await JobModel.updateOne(key, { $set: { ...set, control_seq: seq } });
        try {
          await tell(seq);
        } catch (err) {
          // A workflow that is already closed needs no telling; anything else undoes the change.
          if (!(err instanceof WorkflowNotFoundError)) {
            const back = Object.fromEntries(Object.keys(set).map((k) => [k, (current as Record<string, unknown>)[k] ?? null]));
            await JobModel.updateOne(key, { $set: { ...back, control_seq: seq + 1 } });
            throw err;
          }
        }
        return { ...current, ...set, control_seq: seq } as JobDoc;
      });
    },

    cancelWorkflow: async (jobId: string) => void (await handle(jobId).cancel()),
    signal: <T>(jobId: string, name: string, arg: T) => handle(jobId).signal(name, arg),
    isFinal,
  };
}

export type JobControl = ReturnType<typeof createJobControl>;

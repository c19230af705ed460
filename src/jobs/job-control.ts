import { WorkflowNotFoundError } from '@temporalio/client';
import { withinDeadline } from '../lib/engines/temporal';
import { AppError } from '../lib/errors';
import { assertSelectedClient } from '../clients/selected-client';
import { JobModel, isFinal, type JobDoc, type JobType } from './job.model';
import type { JobLocks } from './job-lock';
import { createJobStarter, type JobStarterDeps } from './job-starter';

export interface JobControlDeps extends JobStarterDeps {
  locks: JobLocks;
}

/**
 * The API side of jobs: accepts them (see job-starter), and finds, cancels and signals them within
 * the caller's tenancy.
 */
export function createJobControl(deps: JobControlDeps) {
  const handle = (jobId: string) => deps.temporal.workflow.getHandle(jobId);
  const starter = createJobStarter(deps);

  return {
    submit: starter.submit,
    sweep: starter.sweep,
    close: starter.close,

    assertClient: assertSelectedClient,

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
      doc: JobDoc,
      from: string[],
      change: (current: JobDoc) => Record<string, unknown>,
      tell: (seq: number) => Promise<void>,
      describe: (status: string) => string,
    ): Promise<JobDoc> {
      const key = { _id: doc._id, client_id: doc.client_id };
      return deps.locks.run(doc._id, async () => {
        const current = await JobModel.findOne(key).lean<JobDoc>();
        if (!current || !from.includes(current.status))
          throw AppError.conflict(describe(current?.status ?? doc.status));
        const set = change(current);
        const seq = current.control_seq + 1;
        await JobModel.updateOne(key, { $set: { ...set, control_seq: seq } });
        try {
          await tell(seq);
        } catch (err) {
          // A workflow that is already closed needs no telling; anything else undoes the change.
          if (!(err instanceof WorkflowNotFoundError)) {
            const back = Object.fromEntries(
              Object.keys(set).map((k) => [k, (current as Record<string, unknown>)[k] ?? null]),
            );
            await JobModel.updateOne(key, { $set: { ...back, control_seq: seq + 1 } });
            throw err;
          }
        }
        return { ...current, ...set, control_seq: seq } as JobDoc;
      });
    },

    cancelWorkflow: async (jobId: string) => void (await withinDeadline(deps.temporal, () => handle(jobId).cancel())),
    signal: <T>(jobId: string, name: string, arg: T) =>
      withinDeadline(deps.temporal, () => handle(jobId).signal(name, arg)),
    isFinal,
  };
}

export type JobControl = ReturnType<typeof createJobControl>;

import type { EventBus, JobEvent, JobEventName } from '../events/event-bus';
import { jobsFinished } from '../lib/metrics';
import { JobModel, isFinal, type JobDoc } from './job.model';
import type { JobLocks } from './job-lock';
import type { JobListIndex } from './job-list-index';
import type { WriteGate } from './write-gate';
import type { JobQuotas } from './job-quotas';
import { eventData } from './job.views';

export async function loadJob(jobId: string, clientId: string): Promise<JobDoc | null> {
  return JobModel.findOne({ _id: jobId, client_id: clientId }).lean<JobDoc>();
}

const ACTIVE = { $nin: ['completed', 'failed', 'cancelled'] };

/**
 * What a step of a job counts: figures to add (`inc`), figures that only ever grow (`max`: of two steps that finish
 * out of order, the one that counted fewer cannot overwrite the other's figure), and the job's new message.
 */
export interface StepCount {
  inc?: Record<string, number>;
  max?: Record<string, number>;
  message: string;
}

/**
 * The changes a job's workflow makes to its record, through activities. Each runs under the job's
 * record lock and is conditional on the state it expects, so a retried activity, a late activity
 * after a cancel, or a pause racing a finish cannot move a job backwards or out of a final state.
 */
export function createJobStore(deps: {
  locks: JobLocks;
  events: EventBus;
  gate?: WriteGate;
  /** Told of every write to a tenant's job records (job-list-index.ts: lists read after it read them again). */
  listIndex: Pick<JobListIndex, 'changed'>;
  /** The tenants' counts of unfinished jobs, which a job that ends leaves (job-quotas.ts). */
  quotas?: Pick<JobQuotas, 'release'>;
}) {
  const { locks, listIndex } = deps;
  const gate = deps.gate ?? (<T>(work: () => Promise<T>) => work());
  /**
   * `update` under the job's lock; the list index is told before the write is answered, unless `wrote` says the
   * update changed nothing. A step of a job cancelled meanwhile still arrives (its activity ends after the run) and
   * writes nothing: telling the index would make the client's next list read its records again for nothing.
   */
  const locked = <T>(
    jobId: string,
    clientId: string,
    update: () => Promise<T>,
    wrote: (result: T) => boolean = () => true,
  ): Promise<T> =>
    gate(() =>
      locks.run(jobId, async () => {
        const result = await update();
        if (wrote(result)) await listIndex.changed(clientId);
        return result;
      }),
    );
  const write = async (
    jobId: string,
    clientId: string,
    filter: Record<string, unknown>,
    update: Record<string, unknown>,
  ) =>
    (
      await locked(
        jobId,
        clientId,
        () => JobModel.updateOne({ _id: jobId, client_id: clientId, ...filter }, update),
        (result) => result.modifiedCount > 0,
      )
    ).modifiedCount === 1;

  /**
   * Publishes a job event unless the record says it was published already. A crash or a Redis outage
   * between the publish and the bookkeeping retries both; the bus answers the first publish's id then,
   * so the event is in the stream once.
   */
  async function publishOnce(doc: JobDoc, name: JobEventName, at = new Date()): Promise<JobEvent | null> {
    if ((doc.events_sent ?? []).includes(name)) return null;
    const event = await deps.events.publish(name, eventData(doc, name, at));
    await write(doc._id, doc.client_id, {}, { $addToSet: { events_sent: name } });
    return event;
  }

  return {
    publishOnce,

    /** queued → running status (with `set`); answers the job as it is now. */
    async start(
      jobId: string,
      clientId: string,
      runningStatus: 'processing' | 'running',
      set: Record<string, unknown> = {},
    ): Promise<JobDoc | null> {
      // The update answers the record it made; a job no longer queued (a cancel came first) is read as it is.
      const started = await locked(
        jobId,
        clientId,
        () =>
          JobModel.findOneAndUpdate(
            { _id: jobId, client_id: clientId, status: 'queued' },
            { $set: { status: runningStatus, started_at: new Date(), ...set } },
            { returnDocument: 'after' },
          ).lean<JobDoc>(),
        (doc) => doc !== null,
      );
      return started ?? loadJob(jobId, clientId);
    },

    /**
     * A step's writes and its count, made under the job's lock and only while the job is in `statuses`.
     * A cancel takes the same lock, so a step that finishes as the job is cancelled either lands and
     * is counted before the cancel, or writes nothing: what a cancelled job keeps is what it counts.
     * `step` answers its count (figures to add, `inc`, or figures that only ever grow, `max`), or null
     * when it counted already (a retried step).
     */
    async recordWhileActive(
      jobId: string,
      clientId: string,
      statuses: string[],
      step: () => Promise<StepCount | null>,
    ): Promise<boolean> {
      const filter = { _id: jobId, client_id: clientId, status: { $in: statuses } };
      return locked(
        jobId,
        clientId,
        async () => {
          if (!(await JobModel.exists(filter))) return false;
          const count = await step();
          if (count)
            await JobModel.updateOne(filter, {
              ...(count.inc && { $inc: count.inc }),
              ...(count.max && { $max: count.max }),
              $set: { message: count.message },
            });
          return true;
        },
        (active) => active, // a job no longer in `statuses` was not written
      );
    },

    /** Changes a job that is not final; `statuses` narrows it further (progress only while running). */
    update: (jobId: string, clientId: string, set: Record<string, unknown>, statuses?: string[]) =>
      write(jobId, clientId, { status: statuses ? { $in: statuses } : ACTIVE }, { $set: set }),

    /**
     * Moves a job to a final state (unless it is in one already: a cancel by the API wins over a late
     * completion) and publishes its final event once: job.completed, or job.failed for failed and
     * cancelled jobs. Answers that event (null when it was published before) and the job as it ended.
     */
    async finish(
      jobId: string,
      clientId: string,
      status: 'completed' | 'failed' | 'cancelled',
      extra: {
        error?: string;
        /** The job's result count, counted under its lock: a step lands before the count or not at all. */
        countResults?: (doc: JobDoc) => Promise<number>;
      } = {},
    ): Promise<{ event: JobEvent | null; job: JobDoc | null }> {
      const doc = await locked(jobId, clientId, async () => {
        const doc = await loadJob(jobId, clientId);
        if (!doc || isFinal(doc.status)) return doc;
        const now = new Date();
        const set: Record<string, unknown> = {
          status,
          completed_at: now,
          paused_at: null,
          paused_ms: (doc.paused_ms ?? 0) + (doc.paused_at ? now.getTime() - doc.paused_at.getTime() : 0),
          message: status === 'cancelled' ? 'Cancelled by user' : status === 'failed' ? 'Failed' : 'Completed',
        };
        if (status === 'completed') set['progress.done'] = doc.progress?.total ?? 0;
        if (extra.error !== undefined) set.error = extra.error;
        if (extra.countResults) set.results_count = await extra.countResults(doc);
        // The update answers the record it made; one that changed meanwhile (the API's cancel) is read again.
        const ended = await JobModel.findOneAndUpdate(
          { _id: jobId, client_id: clientId, status: doc.status },
          { $set: set },
          { returnDocument: 'after' },
        ).lean<JobDoc>();
        return ended ?? loadJob(jobId, clientId);
      });
      if (!doc || !isFinal(doc.status)) return { event: null, job: doc };
      // Its slot is free before its end is announced: a client told the job ended may submit the next one at once.
      await deps.quotas?.release(doc._id, doc.client_id, doc.brand_ids ?? []);
      const event = await publishOnce(
        doc,
        doc.status === 'completed' ? 'job.completed' : 'job.failed',
        doc.completed_at ?? new Date(),
      );
      // Counted with the final event's one publication, whoever ended the job (its run, or a cancel by the API).
      if (event) jobsFinished.inc({ type: doc.type, outcome: doc.status });
      return { event, job: doc };
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;

import type { EventBus } from '../events/event-bus';
import { firstSeenBy, type ResourceType } from '../idap/resources/resources.service';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { stableUuid } from '../lib/ids';
import type { JobControl } from '../jobs/job-control';
import type { JobWorkflows } from '../jobs/jobs.workflows';
import { JOB_QUOTA_CODES } from '../jobs/job-quotas';
import type { WatchRunEnd, WatchRunStart } from '../../workflows/watches-api';
import { WatchModel, WatchRunModel, type WatchDoc, type WatchRunDoc } from './watch.model';

/** How many refs of a run's new leads are kept and announced (the count is always exact). */
export const NEW_LEADS_LISTED = 100;

/**
 * The leads a run counts as new when it saw them first: a maps-scrape run's businesses, and everything a research run
 * finds (it finds no businesses: it links to them).
 */
export const LEAD_TYPES: Record<WatchDoc['job_type'], readonly ResourceType[]> = {
  'maps-scrape': ['businesses'],
  research: ['company_registry', 'domains', 'contacts', 'emails', 'phones', 'linkedin_profiles'],
};

export interface WatchRunsDeps {
  control: Pick<JobControl, 'record' | 'find'>;
  jobRuns: Pick<JobWorkflows, 'runOf'>;
  events: EventBus;
  /** Whether the client may still run anything (a deactivated client's watches run nothing). */
  clientActive(clientId: string): Promise<boolean>;
  /** Deletes the watch's schedule (one already gone is no error). */
  removeSchedule(watchId: string): Promise<void>;
  /** Makes the watch's schedule what its record says (a watch paused for its creator: paused). */
  syncSchedule(watch: WatchDoc): Promise<void>;
}

/** The refusals of a run's job that skip the run (its tenants' bounds, its caps): recorded on the run, not retried. */
const SKIPPING_CODES = new Set<string>([...JOB_QUOTA_CODES, 'job_cap_exceeded']);

const skippingCode = (err: unknown): string | null => {
  const code = err instanceof AppError ? err.extra.code : undefined;
  return typeof code === 'string' && SKIPPING_CODES.has(code) ? code : null;
};

/**
 * A watch's runs as its workflow's activities keep them: the run's job recorded through the jobs area like a submit
 * (its id derived from the run, so a retried step finds it again), and at the end the leads it saw first.
 */
export function createWatchRuns(deps: WatchRunsDeps) {
  /** A run that made no job, on the watch's run list with why (a retried step finds it written). */
  async function skip(
    watch: WatchDoc,
    run: { jobId: string; scheduledAt: string },
    why: { code: string; detail: string },
  ): Promise<WatchRunStart> {
    try {
      await WatchRunModel.create({
        _id: run.jobId,
        client_id: watch.client_id,
        watch_id: watch._id,
        job_type: watch.job_type,
        scheduled_at: new Date(run.scheduledAt),
        status: 'skipped',
        skip_code: why.code,
        skip_reason: why.detail,
        completed_at: new Date(),
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    return { job: null, reason: why.detail };
  }

  return {
    /** The run's job, recorded and announced (job.queued) once, or why the run does nothing. */
    async start(input: {
      watch_id: string;
      client_id: string;
      run_id: string;
      scheduled_at: string;
    }): Promise<WatchRunStart> {
      const watch = await WatchModel.findOne({ _id: input.watch_id, client_id: input.client_id }).lean<WatchDoc>();
      if (!watch) {
        // A delete removes the schedule before the record, so a schedule left without its watch is one whose create
        // Temporal carried out after the request's deadline, when the service had already undone the record: the
        // schedule's first run removes it, or it would start a run that does nothing at every time for ever.
        await deps.removeSchedule(input.watch_id);
        return { job: null, reason: 'the watch was deleted' };
      }
      if (!(await deps.clientActive(input.client_id))) return { job: null, reason: 'the client is deactivated' };
      const jobId = stableUuid('watch-run', input.run_id);
      const run = { jobId, scheduledAt: input.scheduled_at };
      const earlier = await WatchRunModel.findOne({ _id: jobId, client_id: input.client_id }).lean<WatchRunDoc>();
      if (earlier?.status === 'skipped') return { job: null, reason: earlier.skip_reason ?? 'skipped' }; // a retried step
      if (watch.paused_reason) {
        // Its schedule was paused with it; one that ran all the same (the pause did not reach Temporal) is paused now.
        await deps.syncSchedule(watch);
        return skip(watch, run, {
          code: watch.paused_reason,
          detail: 'the watch is paused: its creator can no longer act',
        });
      }
      let recorded: Awaited<ReturnType<WatchRunsDeps['control']['record']>>;
      try {
        recorded = await deps.control.record(watch.job_type, input.client_id, watch.params, {
          jobId,
          watchId: watch._id,
          webhookUrl: watch.webhook_url,
          createdBy: watch.created_by,
          brandIds: watch.creator?.brand_ids ?? [],
        });
      } catch (err) {
        // A run is a job like any: past its client's (or its brands') bounds it is not run, and the run list says why.
        const code = skippingCode(err);
        if (!code) throw err;
        return skip(watch, run, { code, detail: (err as AppError).detail });
      }
      const { doc, queued } = recorded;
      try {
        await WatchRunModel.create({
          _id: jobId,
          client_id: input.client_id,
          watch_id: watch._id,
          job_type: watch.job_type,
          scheduled_at: new Date(input.scheduled_at),
        });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err; // a retried step: the first recorded the run
      }
      return { job: deps.jobRuns.runOf(doc, queued) };
    },

    /**
     * Once the run's job has ended: how it ended, and the leads no earlier job of the client had found, counted and
     * the first ones listed on the run's record; when there are any, announced as watch.new_leads (once per run).
     */
    async finish(input: {
      watch_id: string;
      client_id: string;
      job_id: string;
      job_type: WatchDoc['job_type'];
      scheduled_at: string;
    }): Promise<WatchRunEnd> {
      const job = await deps.control.find(input.client_id, input.job_id, input.job_type);
      // The job's workflow has ended; a record it could not finish (it was stopped) counts as failed.
      const status = (['completed', 'cancelled'].includes(job.status) ? job.status : 'failed') as WatchRunEnd['status'];
      const seen = await firstSeenBy(input.client_id, input.job_id, LEAD_TYPES[input.job_type], NEW_LEADS_LISTED);
      const completedAt = job.completed_at ?? new Date();
      // Announced before the run's record says it ended: a run seen ended has announced what it found.
      const event = seen.count
        ? await deps.events.publish('watch.new_leads', {
            watch_id: input.watch_id,
            job_id: input.job_id,
            job_type: input.job_type,
            status,
            client_id: input.client_id,
            occurred_at: completedAt.toISOString(),
            scheduled_at: input.scheduled_at,
            new_leads_count: seen.count,
            new_leads: seen.refs,
          })
        : null;
      await WatchRunModel.updateOne(
        { _id: input.job_id, client_id: input.client_id },
        {
          $set: {
            status,
            results_count: job.results_count ?? 0,
            new_leads_count: seen.count,
            new_leads: seen.refs,
            completed_at: completedAt,
          },
        },
      );
      return { status, new_leads_count: seen.count, event };
    },

    /** Whether the run's job has ended (a run started again waits for the job its first start ran). */
    async jobEnded(ref: { job_id: string; client_id: string; job_type: WatchDoc['job_type'] }): Promise<boolean> {
      const job = await deps.control.find(ref.client_id, ref.job_id, ref.job_type);
      return ['completed', 'failed', 'cancelled'].includes(job.status);
    },
  };
}

export type WatchRuns = ReturnType<typeof createWatchRuns>;

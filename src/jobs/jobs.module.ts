import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createJobActivities } from '../../activities/jobs';
import type { JobCore } from './job-core';
import { activeJobCounts } from './active-jobs';
import { jobsRoutes } from './jobs.routes';
import { createJobsService } from './jobs.service';
import { createJobUsage } from './job-usage';

export type JobsDeps = Pick<Infra, 'outbound' | 'recorder' | 'webhooks' | 'config' | 'temporalUiUrl'> & {
  /** The job records, runs and worker pieces the jobs and research areas share (job-core.ts). */
  core: JobCore;
};

/**
 * Maps-scrape jobs: submitted, listed, read and cancelled by the API, run by a workflow per job whose
 * activities search the maps provider location by location and store what they find; and what every job's run
 * does at its end (the final state and event, the search index, the webhook).
 */
export function createJobsModule(deps: JobsDeps) {
  const { core } = deps;
  const jobs = createJobsService({ control: core.control, workflows: core.workflows });
  return {
    handlers: jobsRoutes({
      jobs,
      outbound: deps.outbound,
      usage: createJobUsage({ limits: core.limits, quotas: core.quotas }),
      temporal: deps,
    }),
    activities:
      core.work &&
      createJobActivities({ jobs: core.work, activity: { recorder: deps.recorder }, webhooks: deps.webhooks }),
    /** Starts the workflows of queued jobs that have none yet (runs on a timer; callable for tests and tools). */
    sweep: core.control.sweep,
    /** The jobs area owns the job records: it stops the core's sweep and waits for the starts in flight. */
    close: core.control.close,
    /** What other areas read of the job records: a client's unfinished jobs by state and type. */
    service: { activeJobCounts },
  } satisfies AreaModule;
}

import { isFinal } from '../src/jobs/job-records';
import { createJobStore, loadJob } from '../src/jobs/job-store';
import type { JobEvent } from '../src/events/event-bus';
import { researchCompany } from '../src/research/research-company';
import { prepareInputs } from '../src/research/research-inputs';
import { activitySignal, heartbeat, keepAlive } from './heartbeats';
import { withProviderFailures, type JobDeps, type JobRef } from './jobs';

export function createResearchActivities({ jobs }: { jobs: JobDeps }) {
  const store = createJobStore(jobs);
  return {
    /** queued → running; lays out the companies to research and publishes job.started. */
    async startResearchJob(ref: JobRef): Promise<{ proceed: boolean; total: number; event: JobEvent | null }> {
      const queued = await loadJob(ref.job_id, ref.client_id);
      if (!queued || isFinal(queued.status)) return { proceed: false, total: 0, event: null };
      const total = await prepareInputs(queued); // before the job is running, so progress is complete from the start
      const doc = await store.start(ref.job_id, ref.client_id, 'running', {
        companies_total: total,
        'progress.total': total,
        message: `Researching ${total} companies`,
      });
      if (!doc || isFinal(doc.status)) return { proceed: false, total: 0, event: null };
      const event = await store.publishOnce(doc, 'job.started');
      return { proceed: true, total, event };
    },

    /** Researches one company of the job (see researchCompany); provider failures follow the retry rules. */
    async researchCompany(input: JobRef & { index: number }): Promise<{ found: boolean }> {
      return keepAlive(() =>
        withProviderFailures(() =>
          researchCompany(
            { maps: jobs.maps, research: jobs.research, store, signal: activitySignal(), heartbeat },
            input,
            input.index,
          ),
        ),
      );
    },
  };
}

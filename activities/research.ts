import { isFinal } from '../src/jobs/job.model';
import { publishOnce, startJob, updateJob } from '../src/jobs/job-store';
import type { JobEvent } from '../src/events/event-bus';
import { researchCompany } from '../src/research/research-company';
import { prepareInputs } from '../src/research/research-inputs';
import { activitySignal, heartbeat, withProviderFailures, type JobDeps, type JobRef } from './jobs';

export function createResearchActivities({ jobs }: { jobs: JobDeps }) {
  return {
    /** queued → running; lays out the companies to research and publishes job.started. */
    async startResearchJob(ref: JobRef): Promise<{ proceed: boolean; total: number; event: JobEvent | null }> {
      const { doc } = await startJob(ref.job_id, ref.client_id, 'running', { message: 'Preparing companies' });
      if (!doc || isFinal(doc.status)) return { proceed: false, total: 0, event: null };
      const total = await prepareInputs(doc);
      await updateJob(ref.job_id, ref.client_id, { companies_total: total, 'progress.total': total, message: `Researching ${total} companies` });
      const event = await publishOnce(jobs.events, { ...doc, companies_total: total }, 'job.started');
      return { proceed: true, total, event };
    },

    /** Researches one company of the job (see researchCompany); provider failures follow the retry rules. */
    async researchCompany(input: JobRef & { index: number }): Promise<{ found: boolean }> {
      return withProviderFailures(() =>
        researchCompany({ maps: jobs.maps, research: jobs.research, signal: activitySignal(), heartbeat }, input, input.index),
      );
    },
  };
}

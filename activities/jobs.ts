import { Context } from '@temporalio/activity';
import type { EventBus, JobEvent } from '../src/events/event-bus';
import { expandLocations, type JobLocation } from '../src/locations/dataset';
import type { MapsProvider } from '../src/providers/maps';
import type { ResearchProvider } from '../src/providers/research';
import { providerFailure } from '../src/providers/errors';
import { isFinal } from '../src/jobs/job.model';
import { createJobStore, loadJob } from '../src/jobs/job-store';
import type { JobLocks } from '../src/jobs/job-lock';
import { resultsCount, scrapeLocation, type MapsJobParams } from '../src/jobs/maps-scrape';
import { deliverWebhook, webhookSecret } from '../src/jobs/webhooks';
import { researchResultsCount } from '../src/research/research-company';

/** What the job activities need: provider adapters, the event bus, and the key webhooks are signed with. */
export interface JobDeps {
  maps: MapsProvider;
  research: ResearchProvider;
  events: EventBus;
  locks: JobLocks;
  credentialsKey: string;
}

export interface JobRef {
  job_id: string;
  client_id: string;
}

// The locations of a job are recomputed from its parameters instead of travelling through workflow history.
const expansions = new Map<string, JobLocation[]>();
function locationsOf(p: MapsJobParams): JobLocation[] {
  const key = JSON.stringify([p.country_code, p.region_codes ?? [], p.max_locations ?? null]);
  let list = expansions.get(key);
  if (!list) {
    list = expandLocations(p.country_code, p.region_codes ?? [], p.max_locations);
    if (expansions.size > 200) expansions.clear();
    expansions.set(key, list);
  }
  return list;
}

/** The activity's cancellation (the job was cancelled) as an AbortSignal for provider calls. */
export const activitySignal = () => Context.current().cancellationSignal;
export const heartbeat = (details?: unknown) => Context.current().heartbeat(details);

export async function withProviderFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw providerFailure(err);
  }
}

export function createJobActivities({ jobs }: { jobs: JobDeps }) {
  const store = createJobStore(jobs);
  return {
    /** queued → processing; publishes job.started. Answers how many locations the job searches. */
    async startMapsJob(ref: JobRef): Promise<{ proceed: boolean; total: number; event: JobEvent | null }> {
      const queued = await loadJob(ref.job_id, ref.client_id);
      if (!queued || isFinal(queued.status)) return { proceed: false, total: 0, event: null };
      const total = locationsOf(queued.params as MapsJobParams).length;
      const doc = await store.start(ref.job_id, ref.client_id, 'processing', { 'progress.total': total, message: `Searching ${total} locations` });
      if (!doc || isFinal(doc.status)) return { proceed: false, total: 0, event: null };
      const event = await store.publishOnce(doc, 'job.started');
      return { proceed: true, total, event };
    },

    /** Searches location `index` of the job and stores what it found; answers the job's result count. */
    async scrapeLocation(input: JobRef & { params: MapsJobParams; index: number; total: number }) {
      const location = locationsOf(input.params)[input.index];
      if (!location) return { results_count: await resultsCount(input.client_id, input.job_id), found: 0 };
      return withProviderFailures(() =>
        scrapeLocation({ maps: jobs.maps, store, signal: activitySignal(), heartbeat }, { ...input, location }),
      );
    },

    /** Moves the job to its final state (if not there already) and publishes the final event once. */
    async finishJob(input: JobRef & { status: 'completed' | 'failed' | 'cancelled'; error?: string }): Promise<JobEvent | null> {
      const doc = await loadJob(input.job_id, input.client_id);
      const results_count = doc?.type === 'research'
        ? await researchResultsCount(input.client_id, input.job_id)
        : await resultsCount(input.client_id, input.job_id);
      return store.finish(input.job_id, input.client_id, input.status, { error: input.error, results_count });
    },

    /** POSTs one job event to the job's webhook_url, signed with the client's webhook key. */
    async deliverJobWebhook(input: { url: string; client_id: string; event: JobEvent }): Promise<{ status: number }> {
      const status = await deliverWebhook({
        url: input.url, secret: webhookSecret(jobs.credentialsKey, input.client_id), event: input.event, signal: activitySignal(),
      });
      return { status };
    },
  };
}

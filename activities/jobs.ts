import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { EventBus, JobEvent } from '../src/events/event-bus';
import { expandLocations, type JobLocation } from '../src/locations/dataset';
import type { MapsProvider } from '../src/providers/maps';
import type { ResearchProvider } from '../src/providers/research';
import { providerFailure } from '../src/providers/errors';
import { isFinal } from '../src/jobs/job-records';
import { createJobStore, loadJob } from '../src/jobs/job-store';
import type { JobLocks } from '../src/jobs/job-lock';
import type { JobListIndex } from '../src/jobs/job-list-index';
import type { JobQuotas } from '../src/jobs/job-quotas';
import type { RunLocked } from '../src/lib/locks';
import { createWriteGate, type WriteGate } from '../src/jobs/write-gate';
import { createIndexFeed } from '../src/jobs/index-feed';
import { resourcesOfJob } from '../src/idap/resources/resources.service';
import { indexResources } from '../src/idap/search/index-maintenance';
import { resultsCount, scrapeLocation, type MapsJobParams } from '../src/jobs/maps-scrape';
import { deliverWebhook } from '../src/jobs/webhooks';
import type { OutboundPolicy } from '../src/lib/outbound';
import type { WebhookSigning } from './index';
import { researchResultsCount } from '../src/research/research-company';
import { recordJobOutcome } from '../src/activity/outcomes';
import { activitySignal, heartbeat, keepAlive } from './heartbeats';
import type { ActivityRecorder } from '../src/activity/recorder';
import type { MediaFile } from '../src/media/media.service';

/** What the job activities need: provider adapters, the event bus, and the outbound policy of webhooks. */
export interface JobDeps {
  maps: MapsProvider;
  research: ResearchProvider;
  events: EventBus;
  locks: JobLocks;
  /** Told of every write to a job record, so that job lists read after it read the records again. */
  listIndex: Pick<JobListIndex, 'changed'>;
  /** What the search index's maintenance takes turns with, across worker processes (indexResources). */
  indexLock: RunLocked;
  /** Whether maps-scrape jobs feed their results to the search index as they store them (JOB_INDEX_DURING_JOB). */
  indexDuringJob: boolean;
  gate: WriteGate;
  /** Where business photos go (docs/decisions.md §6); storing the same bytes again finds the first copy. */
  media: { storeFiles(clientId: string, files: MediaFile[]): Promise<{ idap_ref: string }[]> };
  /** Which addresses caller-chosen webhook URLs may reach (OUTBOUND_ALLOW_PRIVATE). */
  outbound: OutboundPolicy;
  /** The tenants' counts of unfinished jobs, which a job leaves when it ends. */
  quotas?: Pick<JobQuotas, 'release'>;
}

/** A step of a job's index feed that failed: its resources are left to the job's follow-up index workflow. */
const feedFailed = (err: unknown) =>
  log.warn('job results left to the index workflow', { err: err instanceof Error ? err.message : String(err) });

/** Photos kept per business. */
const MAX_PHOTOS = 3;
/** Resources indexed for search per step. */
const INDEX_CHUNK = 100;

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

export async function withProviderFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw providerFailure(err);
  }
}

export function createJobActivities({
  jobs,
  activity,
  webhooks,
}: {
  jobs: JobDeps;
  activity: { recorder: ActivityRecorder };
  webhooks: WebhookSigning;
}) {
  const store = createJobStore(jobs);
  // Indexing takes one step at a time per worker process, so it never crowds out the jobs' own writes.
  const indexGate = createWriteGate(1);
  // Best effort: a photo that cannot be fetched is left out (its URL stays in data.photo_urls). The photos of all
  // the places are fetched side by side and stored in one step (their records in one statement).
  const storePhotos = async (clientId: string, urlsByPlace: string[][]) => {
    const fetched = await Promise.all(
      urlsByPlace.map((urls) =>
        Promise.all(urls.slice(0, MAX_PHOTOS).map((url) => jobs.maps.fetchPhoto?.(url, activitySignal()) ?? null)),
      ),
    );
    const files = fetched.flat().filter((p) => p !== null && p !== undefined);
    if (!files.length) return urlsByPlace.map(() => []);
    const stored = await jobs.gate(() =>
      jobs.media.storeFiles(
        clientId,
        files.map((p) => ({ body: p.bytes, contentType: p.contentType })),
      ),
    );
    let next = 0;
    return fetched.map((photos) =>
      photos.filter((p) => p !== null && p !== undefined).map(() => stored[next++].idap_ref),
    );
  };
  return {
    /** queued → processing; publishes job.started. Answers how many locations the job searches. */
    async startMapsJob(ref: JobRef): Promise<{ proceed: boolean; total: number; event: JobEvent | null }> {
      const queued = await loadJob(ref.job_id, ref.client_id);
      if (!queued || isFinal(queued.status)) return { proceed: false, total: 0, event: null };
      const total = locationsOf(queued.params as MapsJobParams).length;
      const doc = await store.start(ref.job_id, ref.client_id, 'processing', {
        'progress.total': total,
        message: `Searching ${total} locations`,
      });
      if (!doc || isFinal(doc.status)) return { proceed: false, total: 0, event: null };
      const event = await store.publishOnce(doc, 'job.started');
      return { proceed: true, total, event };
    },

    /**
     * Searches locations [from, to) of the job one after the other and stores what they found,
     * stopping at max_results; answers the job's result count and the next location. A heartbeat
     * records the location in hand, so a retry (after a crash, on another worker) resumes there
     * instead of asking the provider again for the locations already done.
     */
    async scrapeLocations(
      input: JobRef & {
        params: MapsJobParams;
        from: number;
        to: number;
        total: number;
        count?: number;
        /** Index what each location stores as it goes (JOB_INDEX_RESULTS; absent if scheduled before the feed). */
        index?: boolean;
      },
    ) {
      let feedLost = false;
      const feed =
        input.index && jobs.indexDuringJob
          ? createIndexFeed(input.client_id, {
              gate: jobs.gate,
              lock: jobs.indexLock,
              failed: (err) => {
                feedLost = true;
                feedFailed(err);
              },
            })
          : null;
      // Everything this activity stored went through its feed, and every step of it was indexed: a first attempt
      // (a retry resumes after locations an attempt that died stored, maybe before its feed took them) with a feed
      // that lost no step. The workflow then starts no follow-up index workflow for the job.
      const indexedAll = () => feed !== null && !feedLost && Context.current().info.attempt === 1;
      const scrape = async () => {
        const locations = locationsOf(input.params);
        const cap = input.params.max_results ?? Infinity;
        const checkpoint = Context.current().info.heartbeatDetails as { next?: number } | undefined;
        let next = Math.max(input.from, checkpoint?.next ?? input.from);
        const first = next;
        // The workflow's count is exact for a first attempt; a retry may follow a partial write, so it counts.
        let count =
          Context.current().info.attempt > 1 || input.count === undefined
            ? await resultsCount(input.client_id, input.job_id)
            : input.count;
        for (; next < Math.min(input.to, locations.length) && count < cap; next++) {
          const index = next;
          const deps = {
            maps: jobs.maps,
            store,
            signal: activitySignal(),
            heartbeat: (d?: unknown) => heartbeat({ next: index, detail: d }),
            rewriteKnown: Context.current().info.attempt > 1,
            storePhotos,
            stored: feed?.add,
          };
          try {
            ({ results_count: count } = await withProviderFailures(() =>
              scrapeLocation(deps, { ...input, location: locations[index], index, count }),
            ));
          } catch (err) {
            // Locations were done in this attempt: hand back what is done, so the rest starts as a new
            // activity with the full retry budget instead of spending this attempt's.
            if (next > first && err instanceof ApplicationFailure && !err.nonRetryable) break;
            throw err;
          }
          heartbeat({ next: index + 1 });
        }
        return { results_count: count, next };
      };
      // It ends once its feed has (heartbeating meanwhile), so that by job.completed the results are searchable.
      const done = await keepAlive(() => scrape().finally(() => feed?.settled()));
      return { ...done, indexed: indexedAll() };
    },

    /** Moves the job to its final state (if not there already) and publishes the final event once. */
    async finishJob(
      input: JobRef & { status: 'completed' | 'failed' | 'cancelled'; error?: string; results_count?: number },
    ): Promise<JobEvent | null> {
      const { event, job } = await store.finish(input.job_id, input.client_id, input.status, {
        error: input.error,
        // Counted from what is stored, not from the workflow's running count: an attempt Temporal timed out
        // while it was unreachable can still have been writing when its retry counted (fault matrix, Temporal case).
        countResults: (doc) =>
          (doc.type === 'research' ? researchResultsCount : resultsCount)(input.client_id, input.job_id),
      });
      // Every attempt records it (under one id), so a retry after a crash here still logs the outcome.
      await recordJobOutcome(activity.recorder, job);
      return event;
    },

    /** Indexes every resource the job wrote for search, a chunk at a time (the index converges, so a retry is safe). */
    async indexJobResults(ref: JobRef): Promise<{ indexed: number }> {
      return keepAlive(async () => {
        const refs = await resourcesOfJob(ref.client_id, ref.job_id);
        for (let i = 0; i < refs.length; i += INDEX_CHUNK) {
          await indexGate(() => indexResources(ref.client_id, refs.slice(i, i + INDEX_CHUNK), jobs.indexLock));
          heartbeat({ indexed: Math.min(i + INDEX_CHUNK, refs.length), of: refs.length });
        }
        return { indexed: refs.length };
      });
    },

    /** POSTs one job event to the job's webhook_url, signed with the client's secrets in force at this attempt. */
    async deliverJobWebhook(input: { url: string; client_id: string; event: JobEvent }): Promise<{ status: number }> {
      const status = await deliverWebhook({
        url: input.url,
        secrets: await webhooks.signingSecrets(input.client_id),
        event: input.event,
        signal: activitySignal(),
        policy: jobs.outbound,
      });
      return { status };
    },
  };
}

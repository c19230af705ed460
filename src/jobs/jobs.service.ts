import { assertSelectedClient } from '../clients/selected-client';
import { AppError } from '../lib/errors';
import type { JsonBody, QueryParams, Schemas } from '../lib/contract-types';
import { pageEnvelope, type Page } from '../lib/pagination';
import { countryExists, unknownRegions } from '../locations/dataset';
import type { JobControl, Submitter } from './job-control';
import { toJob } from './job.views';
import type { JobWorkflows } from './jobs.workflows';
import type { MapsJobParams } from './maps-scrape';
import { resultsDownload, resultsPage, type ResultsFormat } from './results';

export const BUSINESS_COLUMNS = [
  'idap_ref',
  'name',
  'category',
  'address',
  'country_code',
  'region_code',
  'lat',
  'lng',
  'phone',
  'website',
  'rating',
  'reviews_count',
];

/** Refuses (422) a country or a region the locations dataset does not know: a job (or a watch) would find nothing. */
export function assertKnownArea(params: Pick<MapsJobParams, 'country_code' | 'region_codes'>, at = 'body'): void {
  if (!countryExists(params.country_code)) {
    throw AppError.invalid(`Unknown country_code ${params.country_code}`, [
      { location: 'body', field: `${at}country_code`, message: 'not a known country' },
    ]);
  }
  const unknown = unknownRegions(params.country_code, params.region_codes ?? []);
  if (unknown.length) {
    throw AppError.invalid(`Unknown region_codes for ${params.country_code}: ${unknown.join(', ')}`, [
      { location: 'body', field: `${at}region_codes`, message: `unknown: ${unknown.join(', ')}` },
    ]);
  }
}

/** Maps-scrape jobs: submitted for a country and its regions, listed, read, cancelled, and their results. */
export function createJobsService(deps: { control: JobControl; workflows: Pick<JobWorkflows, 'cancel'> }) {
  const { control } = deps;
  return {
    async submit(who: Submitter, body: JsonBody<'submitMapsScrapeJob'>): Promise<Schemas['JobSubmitted']> {
      const { webhook_url, ...params } = body;
      assertKnownArea(params);
      await assertSelectedClient(who.clientId, who.isSuperAdmin);
      const doc = await control.submit('maps-scrape', who.clientId, params, {
        webhookUrl: webhook_url,
        createdBy: who.userId,
        submittedBy: who.actor,
        idempotency: who.idempotency,
        brandIds: who.brandIds,
        showQuota: who.showQuota,
      });
      const ran = doc.params as MapsJobParams;
      return {
        job_id: doc._id,
        type: 'maps-scrape',
        status: 'queued',
        max_locations: ran.max_locations ?? null,
        max_results: ran.max_results ?? null,
        created_at: doc.created_at.toISOString(),
      };
    },

    /** This list holds maps-scrape jobs (research jobs have their own list): a filter for another type finds none. */
    async list(
      scope: string | null,
      filter: { type?: QueryParams<'listJobs'>['type_filter']; status?: QueryParams<'listJobs'>['status_filter'] },
      page: Page,
    ) {
      if (filter.type !== undefined && filter.type !== 'maps-scrape') return pageEnvelope('jobs', [], 0, page);
      const { docs, total } = await control.list(scope, 'maps-scrape', filter.status, page);
      return pageEnvelope('jobs', docs.map(toJob), total, page);
    },

    async get(scope: string | null, jobId: string) {
      return toJob(await control.find(scope, jobId, 'maps-scrape'));
    },

    async cancel(scope: string | null, jobId: string) {
      const doc = await control.find(scope, jobId, 'maps-scrape');
      const updated = await control.transition(
        doc,
        ['queued', 'processing'],
        () => ({ status: 'cancelled', completed_at: new Date(), message: 'Cancelled by user' }),
        () => deps.workflows.cancel(jobId),
        (status) => `Job is already ${status}`,
      );
      return toJob(updated);
    },

    /** A completed job's results: a page of them, or the whole set as a file (csv, jsonl). */
    async results(scope: string | null, jobId: string, format: ResultsFormat, page: Page) {
      const doc = await control.find(scope, jobId, 'maps-scrape');
      if (doc.status !== 'completed') throw AppError.conflict(`Job is not completed (status: ${doc.status})`);
      if (format !== 'json')
        return { download: resultsDownload(doc, { format, filename: `job-${jobId}`, columns: BUSINESS_COLUMNS }) };
      return {
        json: {
          job_id: jobId,
          status: 'completed' as const,
          ...(await resultsPage<Schemas['ScrapedBusiness']>(doc, page)),
        },
      };
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;

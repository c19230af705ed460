import { AppError } from '../lib/errors';
import type { Page } from '../lib/pagination';
import { countryExists, unknownRegions } from '../locations/dataset';
import type { JobControl } from './job-control';
import { JobModel, type JobDoc } from './job.model';
import { toJob } from './job.views';
import type { MapsJobParams } from './maps-scrape';
import { resultsPage, streamResults, type ResultsFormat } from './results';
import type { Response } from 'express';

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

export interface Submitter {
  clientId: string;
  isSuperAdmin: boolean;
  userId: string | null;
}

/** Lists jobs of one type within a tenancy (null: all clients, for a super_admin), newest first. */
export async function listJobs(scope: string | null, type: string, status: string | undefined, page: Page) {
  const filter: Record<string, unknown> = {
    type,
    ...(scope ? { client_id: scope } : {}),
    ...(status ? { status } : {}),
  };
  const opts = scope ? {} : { allTenants: true };
  const [docs, total] = await Promise.all([
    JobModel.find(filter, null, opts)
      .sort({ created_at: -1, _id: -1 })
      .skip(page.skip)
      .limit(page.page_size)
      .lean<JobDoc[]>(),
    JobModel.countDocuments(filter, opts),
  ]);
  return { docs, total };
}

export function createJobsService(deps: { control: JobControl }) {
  const { control } = deps;
  return {
    /** Stops the start sweep and waits for workflow starts in flight. */
    close: control.close,
    /** Starts the workflows of queued jobs that have none yet (runs on a timer; callable for tests and tools). */
    sweep: control.sweep,

    async submit(who: Submitter, body: MapsJobParams & { webhook_url?: string }) {
      const { webhook_url, ...params } = body;
      if (!countryExists(params.country_code)) {
        throw AppError.invalid(`Unknown country_code ${params.country_code}`, [
          { location: 'body', field: 'country_code', message: 'not a known country' },
        ]);
      }
      const unknown = unknownRegions(params.country_code, params.region_codes ?? []);
      if (unknown.length) {
        throw AppError.invalid(`Unknown region_codes for ${params.country_code}: ${unknown.join(', ')}`, [
          { location: 'body', field: 'region_codes', message: `unknown: ${unknown.join(', ')}` },
        ]);
      }
      await control.assertClient(who.clientId, who.isSuperAdmin);
      const doc = await control.submit('maps-scrape', who.clientId, params, {
        webhookUrl: webhook_url,
        createdBy: who.userId,
      });
      return {
        job_id: doc._id,
        type: 'maps-scrape',
        status: 'queued',
        created_at: doc.created_at.toISOString(),
      };
    },

    async list(scope: string | null, filter: { type?: string; status?: string }, page: Page) {
      const { docs, total } = await listJobs(scope, 'maps-scrape', filter.status, page);
      return { jobs: docs.map(toJob), total, page: page.page, page_size: page.page_size };
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
        () => control.cancelWorkflow(jobId),
        (status) => `Job is already ${status}`,
      );
      return toJob(updated);
    },

    async results(scope: string | null, jobId: string, format: ResultsFormat, page: Page, res: Response) {
      const doc = await control.find(scope, jobId, 'maps-scrape');
      if (doc.status !== 'completed') throw AppError.conflict(`Job is not completed (status: ${doc.status})`);
      if (format !== 'json')
        return streamResults(res, doc, { format, filename: `job-${jobId}`, columns: BUSINESS_COLUMNS });
      res.json({ job_id: jobId, status: 'completed', ...(await resultsPage(doc, page)) });
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;

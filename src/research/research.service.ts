import { assertSelectedClient } from '../clients/selected-client';
import { AppError } from '../lib/errors';
import type { JsonBody, QueryParams, Schemas } from '../lib/contract-types';
import { pageEnvelope, type Page } from '../lib/pagination';
import type { JobControl, Submitter } from '../jobs/job-control';
import type { JobDoc } from '../jobs/job-records';
import { toResearchJob } from '../jobs/job.views';
import type { JobWorkflows } from '../jobs/jobs.workflows';
import { resultsDownload, resultsPage, type ResultsFormat } from '../jobs/results';
import type { ResearchWorkflows } from './research.workflows';

export const COMPANY_COLUMNS = [
  'idap_ref',
  'name',
  'domain',
  'country_code',
  'registration_number',
  'industry',
  'employees',
  'description',
  'linkedin_url',
  'emails',
  'phones',
  'contacts',
];

const flatContacts = (d: Schemas['CompanyResearch']) => ({
  ...d,
  contacts: (d.contacts ?? []).map((c) =>
    [c.name, c.title && `(${c.title})`, c.email && `<${c.email}>`].filter(Boolean).join(' '),
  ),
});

/** Ends a pause: its duration is added to the time left out of processing_time. */
const unpause = (d: JobDoc) => ({
  paused_at: null,
  paused_ms: (d.paused_ms ?? 0) + (d.paused_at ? Date.now() - d.paused_at.getTime() : 0),
});

/** Company-research jobs: submitted (for companies named or a maps-scrape job's finds), paused, resumed, cancelled. */
export function createResearchService(deps: {
  control: JobControl;
  jobRuns: Pick<JobWorkflows, 'cancel'>;
  workflows: ResearchWorkflows;
}) {
  const { control, workflows } = deps;
  const find = (scope: string | null, id: string) => control.find(scope, id, 'research');
  /** A change of the job's state (see JobControl.transition), answered as the job it leaves. */
  const move = async (
    scope: string | null,
    id: string,
    m: {
      from: string[];
      change: (current: JobDoc) => Record<string, unknown>;
      tell: (seq: number) => Promise<void>;
      refusal: (status: string) => string;
    },
  ) => toResearchJob(await control.transition(await find(scope, id), m.from, m.change, m.tell, m.refusal));

  return {
    async submit(who: Submitter, body: JsonBody<'submitResearchJob'>) {
      const { webhook_url, ...params } = body;
      await assertSelectedClient(who.clientId, who.isSuperAdmin);
      if ('source_job_id' in params) {
        const source = await control.find(who.clientId, params.source_job_id, 'maps-scrape');
        if (source.status !== 'completed')
          throw AppError.conflict(`Source job is not completed (status: ${source.status})`);
      }
      const doc = await control.submit('research', who.clientId, params, {
        webhookUrl: webhook_url,
        createdBy: who.userId,
        submittedBy: who.actor,
        idempotency: who.idempotency,
        brandIds: who.brandIds,
        showQuota: who.showQuota,
      });
      return { research_id: doc._id, status: 'queued' as const, created_at: doc.created_at.toISOString() };
    },

    async list(scope: string | null, status: QueryParams<'listResearchJobs'>['status'], page: Page) {
      const { docs, total } = await control.list(scope, 'research', status, page);
      return pageEnvelope('research_jobs', docs.map(toResearchJob), total, page);
    },

    get: async (scope: string | null, id: string) => toResearchJob(await find(scope, id)),

    /** running → paused: the workflow finishes the companies in hand, then waits without an activity. */
    pause: (scope: string | null, id: string) =>
      move(scope, id, {
        from: ['running'],
        change: () => ({ status: 'paused', paused_at: new Date(), message: 'Paused' }),
        tell: (seq) => workflows.pause(id, seq),
        refusal: (status) => `Research job is not running (status: ${status})`,
      }),

    /** paused → running: the workflow continues with the next company. */
    resume: (scope: string | null, id: string) =>
      move(scope, id, {
        from: ['paused'],
        change: (cur) => ({ status: 'running', ...unpause(cur), message: 'Resumed' }),
        tell: (seq) => workflows.resume(id, seq),
        refusal: (status) => `Research job is not paused (status: ${status})`,
      }),

    cancel: (scope: string | null, id: string) =>
      move(scope, id, {
        from: ['queued', 'running', 'paused'],
        change: (cur) => ({
          status: 'cancelled',
          completed_at: new Date(),
          ...unpause(cur),
          message: 'Cancelled by user',
        }),
        tell: () => deps.jobRuns.cancel(id),
        refusal: (status) => `Research job is already ${status}`,
      }),

    /** A completed research job's results: a page of them, or the whole set as a file (csv, jsonl). */
    async results(scope: string | null, id: string, format: ResultsFormat, page: Page) {
      const doc: JobDoc = await find(scope, id);
      if (doc.status !== 'completed') throw AppError.conflict(`Research job is not completed (status: ${doc.status})`);
      if (format !== 'json') {
        const download = resultsDownload(doc, {
          format,
          filename: `research-${id}`,
          columns: COMPANY_COLUMNS,
          row: flatContacts,
        });
        return { download };
      }
      return {
        json: {
          research_id: id,
          status: 'completed' as const,
          ...(await resultsPage<Schemas['CompanyResearch']>(doc, page)),
        },
      };
    },
  };
}

export type ResearchService = ReturnType<typeof createResearchService>;

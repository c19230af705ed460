import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type components } from '@/api/client';
import type { LiveEvent } from '@/api/live-events';
import type { JobType, JobsSearch } from './routes';

export type MapsJob = components['schemas']['Job'];
export type ResearchJob = components['schemas']['ResearchJob'];
export type AnyJob = MapsJob | ResearchJob;

/** A job of either type as the list and the job's page show it. */
export interface JobRow {
  id: string;
  type: JobType;
  title: string;
  status: string;
  progress: { done: number; total: number };
  message: string | null;
  results_count: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  paused_at: string | null;
  completed_at: string | null;
  processing_time: number | null;
  temporal_run_url?: string;
}

export const isMaps = (job: AnyJob): job is MapsJob => 'job_id' in job;

export function rowOf(job: AnyJob): JobRow {
  const shared = {
    status: job.status,
    progress: job.progress,
    message: job.message,
    results_count: job.results_count,
    error: job.error,
    created_at: job.created_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
    processing_time: job.processing_time,
    temporal_run_url: job.temporal_run_url,
  };
  if (isMaps(job)) {
    const where = job.region_codes.length ? `${job.country_code} (${job.region_codes.join(', ')})` : job.country_code;
    return { ...shared, id: job.job_id, type: 'maps-scrape', title: `${job.query} in ${where}`, paused_at: null };
  }
  const title = job.source_job_id
    ? `${job.companies_total} companies from job ${job.source_job_id.slice(0, 8)}`
    : `${job.companies_total} listed ${job.companies_total === 1 ? 'company' : 'companies'}`;
  return { ...shared, id: job.research_id, type: 'research', title, paused_at: job.paused_at };
}

/** States a job may still leave: its page and the list poll its progress while one is shown. */
export const UNFINISHED = new Set(['queued', 'processing', 'running', 'paused']);
const MOVING = new Set(['queued', 'processing', 'running']);
/** How often progress ({done, total}, which no event carries) is read while a job shown moves. */
export const PROGRESS_POLL_MS = 2000;

/** One page of a type's jobs; keys start with 'jobs' so the shell's live invalidation refreshes them. */
export const jobsListQuery = (s: Pick<JobsSearch, 'type' | 'status' | 'page' | 'page_size'>) =>
  queryOptions({
    queryKey: ['jobs', 'list', s.type, s.status ?? null, s.page, s.page_size],
    queryFn: async (): Promise<{ rows: JobRow[]; total: number }> => {
      const paging = { page: s.page, page_size: s.page_size };
      if (s.type === 'research') {
        const status = s.status as ResearchJob['status'] | undefined;
        const r = await unwrap(
          api.GET('/api/v1/dashboard/client/research', { params: { query: { ...paging, status } } }),
        );
        return { rows: r.research_jobs.map(rowOf), total: r.total };
      }
      const status_filter = s.status as MapsJob['status'] | undefined;
      const r = await unwrap(
        api.GET('/api/v1/dashboard/client/jobs', {
          params: { query: { ...paging, type_filter: 'maps-scrape', status_filter } },
        }),
      );
      return { rows: r.jobs.map(rowOf), total: r.total };
    },
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.rows.some((r) => MOVING.has(r.status)) ? PROGRESS_POLL_MS : false),
  });

export const jobQuery = (type: JobType, id: string) =>
  queryOptions({
    queryKey: ['jobs', 'one', type, id],
    queryFn: async (): Promise<JobRow> => {
      if (type === 'research')
        return rowOf(
          await unwrap(
            api.GET('/api/v1/dashboard/client/research/{research_id}/status', {
              params: { path: { research_id: id } },
            }),
          ),
        );
      return rowOf(
        await unwrap(api.GET('/api/v1/dashboard/client/jobs/{job_id}/status', { params: { path: { job_id: id } } })),
      );
    },
    refetchInterval: (q) => (q.state.data && MOVING.has(q.state.data.status) ? PROGRESS_POLL_MS : false),
  });

export const usageQuery = queryOptions({
  queryKey: ['usage'],
  queryFn: () => unwrap(api.GET('/api/v1/dashboard/client/usage')),
});

/**
 * A job event's state drawn at once on every list and page that shows the job (before the refetch the shell's
 * invalidation starts has answered): the event carries the job's id and status, its end carries results_count.
 */
export function applyJobEvent(queryClient: QueryClient, event: LiveEvent) {
  const id = event.data.job_id;
  const status = event.data.status;
  if (typeof id !== 'string' || typeof status !== 'string') return;
  const patch = (row: JobRow): JobRow =>
    row.id !== id
      ? row
      : {
          ...row,
          status,
          results_count: typeof event.data.results_count === 'number' ? event.data.results_count : row.results_count,
        };
  queryClient.setQueriesData<{ rows: JobRow[]; total: number }>({ queryKey: ['jobs', 'list'] }, (old) =>
    old ? { ...old, rows: old.rows.map(patch) } : old,
  );
  queryClient.setQueriesData<JobRow>({ queryKey: ['jobs', 'one'] }, (old) => (old ? patch(old) : old));
}

/** The operations behind a job's page, by type: what the buttons call and what "show the API call" writes out. */
export const OPS = {
  'maps-scrape': {
    status: { operationId: 'getJobStatus', path: '/api/v1/dashboard/client/jobs/{job_id}/status', param: 'job_id' },
    results: { operationId: 'getJobResults', path: '/api/v1/dashboard/client/jobs/{job_id}/results', param: 'job_id' },
    cancel: { operationId: 'cancelJob', path: '/api/v1/dashboard/client/jobs/{job_id}/cancel', param: 'job_id' },
  },
  research: {
    status: {
      operationId: 'getResearchStatus',
      path: '/api/v1/dashboard/client/research/{research_id}/status',
      param: 'research_id',
    },
    results: {
      operationId: 'getResearchResults',
      path: '/api/v1/dashboard/client/research/{research_id}/results',
      param: 'research_id',
    },
    cancel: {
      operationId: 'cancelResearchJob',
      path: '/api/v1/dashboard/client/research/{research_id}/cancel',
      param: 'research_id',
    },
  },
} as const;

/** The results' whole set as a download (the API's CSV or JSON Lines; the session cookie authenticates it). */
export const exportUrl = (type: JobType, id: string, format: 'csv' | 'jsonl') =>
  `${OPS[type].results.path.replace(`{${OPS[type].results.param}}`, encodeURIComponent(id))}?format=${format}`;

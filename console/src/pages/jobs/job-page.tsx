import { useEffect, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ArrowLeft, ChevronLeft, ChevronRight, ExternalLink } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { onLiveEvent, type LiveEvent } from '@/api/live-events';
import { meQuery } from '@/api/session';
import { DownloadLink } from '@/components/download-link';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { ErrorState, Loading, PageHeader } from '@/components/states';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { formatDateTime, formatNumber } from '@/lib/format';
import { applyJobEvent, exportUrl, jobQuery, OPS, UNFINISHED, type JobRow } from './jobs-data';
import { JobActions, JobProgress, StatusBadge } from './job-parts';
import { jobRoute, type JobType } from './routes';

type Business = components['schemas']['ScrapedBusiness'];
type Company = components['schemas']['CompanyResearch'];
const RESULTS_PAGE_SIZE = 50;

/** What the status operation tells of a job's course, oldest first: queued, started, paused, where it is, its end. */
function timelineOf(job: JobRow) {
  const steps: { what: string; at: string | null; detail?: string }[] = [{ what: 'Queued', at: job.created_at }];
  if (job.started_at) steps.push({ what: 'Started', at: job.started_at });
  if (job.paused_at) steps.push({ what: 'Paused', at: job.paused_at });
  if (job.started_at && (job.progress.total > 0 || job.message))
    steps.push({
      what: UNFINISHED.has(job.status) ? 'Progress' : 'Last progress',
      at: null,
      detail: [
        job.progress.total > 0 ? `${formatNumber(job.progress.done)} of ${formatNumber(job.progress.total)}` : null,
        job.message,
      ]
        .filter(Boolean)
        .join(' · '),
    });
  if (job.completed_at) {
    const what = job.status === 'completed' ? 'Completed' : job.status === 'cancelled' ? 'Cancelled' : 'Failed';
    const detail =
      job.status === 'completed'
        ? `${formatNumber(job.results_count)} results${job.processing_time !== null ? ` in ${job.processing_time} s` : ''}`
        : (job.error ?? undefined);
    steps.push({ what, at: job.completed_at, detail });
  }
  return steps;
}

const businessColumns: ColumnDef<Business>[] = [
  { id: 'name', header: 'Name', cell: ({ row }) => <span className="font-medium">{row.original.name}</span> },
  { id: 'category', header: 'Category', cell: ({ row }) => row.original.category ?? '—' },
  {
    id: 'address',
    header: 'Address',
    cell: ({ row }) => <span className="block max-w-64 truncate">{row.original.address ?? '—'}</span>,
  },
  {
    id: 'phone',
    header: 'Phone',
    cell: ({ row }) => <span className="whitespace-nowrap">{row.original.phone ?? '—'}</span>,
  },
  { id: 'website', header: 'Website', cell: ({ row }) => row.original.website ?? '—' },
  { id: 'rating', header: 'Rating', cell: ({ row }) => (row.original.rating === null ? '—' : row.original.rating) },
  { id: 'reviews', header: 'Reviews', cell: ({ row }) => formatNumber(row.original.reviews_count) },
];

const companyColumns: ColumnDef<Company>[] = [
  { id: 'name', header: 'Name', cell: ({ row }) => <span className="font-medium">{row.original.name}</span> },
  { id: 'domain', header: 'Domain', cell: ({ row }) => row.original.domain ?? '—' },
  { id: 'industry', header: 'Industry', cell: ({ row }) => row.original.industry ?? '—' },
  { id: 'employees', header: 'Employees', cell: ({ row }) => formatNumber(row.original.employees) },
  { id: 'emails', header: 'E-mails', cell: ({ row }) => row.original.emails.join(', ') || '—' },
  { id: 'phones', header: 'Phones', cell: ({ row }) => row.original.phones.join(', ') || '—' },
  { id: 'contacts', header: 'Contacts', cell: ({ row }) => formatNumber(row.original.contacts.length) },
];

function resultsQuery(type: JobType, id: string, page: number) {
  const query = { page, page_size: RESULTS_PAGE_SIZE, format: 'json' as const };
  return {
    queryKey: ['jobs', 'results', type, id, page],
    queryFn: async (): Promise<{ total: number; rows: (Business | Company)[] }> => {
      if (type === 'research') {
        const r = await unwrap(
          api.GET('/api/v1/dashboard/client/research/{research_id}/results', {
            params: { path: { research_id: id }, query },
          }),
        );
        if (typeof r === 'string') throw new Error('The results came as text, not JSON');
        return { total: r.total, rows: r.results };
      }
      const r = await unwrap(
        api.GET('/api/v1/dashboard/client/jobs/{job_id}/results', { params: { path: { job_id: id }, query } }),
      );
      if (typeof r === 'string') throw new Error('The results came as text, not JSON');
      return { total: r.total, rows: r.results };
    },
    placeholderData: keepPreviousData,
  };
}

/** A completed job's results, a page at a time from the API, and the whole set as the API's CSV or JSON Lines. */
function Results({ job, page }: { job: JobRow; page: number }) {
  const navigate = useNavigate({ from: jobRoute.fullPath });
  const results = useQuery(resultsQuery(job.type, job.id, page));
  const pages = Math.max(1, Math.ceil((results.data?.total ?? 0) / RESULTS_PAGE_SIZE));
  const op = OPS[job.type].results;
  const go = (p: number) => void navigate({ search: (prev) => ({ ...prev, page: p }) });
  return (
    <section aria-labelledby="results-title" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="results-title" className="text-lg font-semibold">
          Results
        </h2>
        <div className="flex flex-wrap items-center gap-2">
          {(['csv', 'jsonl'] as const).map((format) => (
            <span key={format} className="inline-flex items-center gap-1">
              <DownloadLink href={exportUrl(job.type, job.id, format)} fileName={`${job.id}.${format}`}>
                Export {format === 'csv' ? 'CSV' : 'JSON Lines'}
              </DownloadLink>
              <ApiCallButton
                label={`${format.toUpperCase()} call`}
                call={{
                  operationId: op.operationId,
                  method: 'GET',
                  path: op.path,
                  pathParams: { [op.param]: job.id },
                  query: { format },
                }}
              />
            </span>
          ))}
        </div>
      </div>
      {job.type === 'research' ? (
        <DataTable
          label="Research results"
          columns={companyColumns}
          data={(results.data?.rows ?? []) as Company[]}
          getRowId={(c) => c.idap_ref}
          isLoading={results.isPending}
          error={results.error}
          retry={() => void results.refetch()}
          footer={<Pager page={page} pages={pages} total={results.data?.total ?? 0} go={go} />}
        />
      ) : (
        <DataTable
          label="Businesses found"
          columns={businessColumns}
          data={(results.data?.rows ?? []) as Business[]}
          getRowId={(b) => b.idap_ref}
          isLoading={results.isPending}
          error={results.error}
          retry={() => void results.refetch()}
          footer={<Pager page={page} pages={pages} total={results.data?.total ?? 0} go={go} />}
        />
      )}
    </section>
  );
}

function Pager({ page, pages, total, go }: { page: number; pages: number; total: number; go: (p: number) => void }) {
  return (
    <>
      <p className="text-sm text-muted-foreground">
        Page {page} of {pages} · {formatNumber(total)} results
      </p>
      <nav aria-label="Pages of results" className="flex gap-2">
        <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => go(page - 1)}>
          <ChevronLeft aria-hidden /> Previous
        </Button>
        <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => go(page + 1)}>
          Next <ChevronRight aria-hidden />
        </Button>
      </nav>
    </>
  );
}

/**
 * A job's page: its state and progress (live), what can be done to it, its timeline, its results once completed,
 * and for an operator its run in the Temporal Web UI (the status answer gives a super_admin that link).
 */
export function JobPage() {
  const { jobId } = jobRoute.useParams();
  const { type, page } = jobRoute.useSearch();
  const queryClient = useQueryClient();
  const me = useQuery(meQuery).data;
  const job = useQuery(jobQuery(type, jobId));
  const [events, setEvents] = useState<LiveEvent[]>([]);
  useEffect(
    () =>
      onLiveEvent((event) => {
        if (!event.type.startsWith('job.') || event.data.job_id !== jobId) return;
        applyJobEvent(queryClient, event);
        setEvents((list) => [...list, event]);
      }),
    [queryClient, jobId],
  );

  if (job.isPending) return <Loading label="Loading the job…" />;
  if (job.error) return <ErrorState error={job.error} retry={() => void job.refetch()} />;
  const j = job.data;
  const status = OPS[type].status;
  return (
    <div className="flex flex-col gap-4">
      <Link
        to="/jobs"
        search={{ type }}
        className="inline-flex items-center gap-1 text-sm text-primary hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden /> All {type} jobs
      </Link>
      <PageHeader
        title={j.title}
        description={
          <>
            {type === 'research' ? 'Research job' : 'Maps-scrape job'} <code className="text-xs">{j.id}</code>
          </>
        }
        actions={
          <>
            <JobActions job={j} />
            <ApiCallButton
              label="Status call"
              call={{
                operationId: status.operationId,
                method: 'GET',
                path: status.path,
                pathParams: { [status.param]: j.id },
              }}
            />
            {j.temporal_run_url ? (
              <a
                href={j.temporal_run_url}
                target="_blank"
                rel="noreferrer"
                className={buttonVariants({ variant: 'outline', size: 'sm' })}
              >
                <ExternalLink aria-hidden /> Run in Temporal UI
              </a>
            ) : (
              me?.role === 'super_admin' && (
                <span className="text-xs text-muted-foreground">The service knows no Temporal UI to link to.</span>
              )
            )}
          </>
        }
      />
      <Card className="flex flex-col gap-3">
        <div className="flex flex-wrap items-center gap-3">
          <StatusBadge status={j.status} />
          <JobProgress job={j} label="Progress" />
          <span className="text-sm">{formatNumber(j.results_count)} results so far</span>
        </div>
        {j.error && (
          <p role="alert" className="text-sm text-destructive">
            {j.error}
          </p>
        )}
        <section aria-labelledby="timeline-title">
          <h2 id="timeline-title" className="mb-2 text-lg font-semibold">
            Timeline
          </h2>
          <ol className="flex flex-col gap-2 border-l border-border pl-4" aria-label="Timeline">
            {timelineOf(j).map((step) => (
              <li key={step.what} className="text-sm">
                <span className="font-medium">{step.what}</span>
                {step.at && (
                  <>
                    {' '}
                    <time dateTime={step.at} className="text-muted-foreground">
                      {formatDateTime(step.at)}
                    </time>
                  </>
                )}
                {step.detail && <span className="block text-muted-foreground">{step.detail}</span>}
              </li>
            ))}
          </ol>
        </section>
        <section aria-labelledby="events-title">
          <h2 id="events-title" className="mb-1 text-base font-semibold">
            Events while this page is open
          </h2>
          {events.length ? (
            <ul className="flex flex-col gap-1 text-sm" aria-label="Live events">
              {events.map((e) => (
                <li key={e.id || `${e.type}-${String(e.data.occurred_at)}`}>
                  <code>{e.type}</code> {String(e.data.status)}{' '}
                  <span className="text-muted-foreground">{formatDateTime(String(e.data.occurred_at))}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-muted-foreground">None yet: they appear here as the job moves.</p>
          )}
        </section>
      </Card>
      {j.status === 'completed' ? (
        <Results job={j} page={page} />
      ) : (
        <p className="text-sm text-muted-foreground">Results can be read once the job has completed.</p>
      )}
    </div>
  );
}

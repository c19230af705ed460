import { useEffect, useMemo } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { onLiveEvent } from '@/api/live-events';
import { DataTable } from '@/components/data-table';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Label, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber, formatRelative } from '@/lib/format';
import { applyJobEvent, jobsListQuery, type JobRow } from './jobs-data';
import { JobProgress, StatusBadge } from './job-parts';
import { JOB_TYPES, PAGE_SIZES, STATUSES, jobsListRoute, type JobsSearch } from './routes';
import { SubmitMapsJob, SubmitResearchJob } from './submit-dialogs';

const TYPE_LABEL = { 'maps-scrape': 'Maps scrape', research: 'Research' } as const;

const columns: ColumnDef<JobRow>[] = [
  {
    id: 'job',
    header: 'Job',
    cell: ({ row: { original: job } }) => (
      <Link
        to="/jobs/$jobId"
        params={{ jobId: job.id }}
        search={{ type: job.type, page: 1 }}
        className="block max-w-64 truncate font-medium text-primary underline-offset-4 hover:underline"
      >
        {job.title}
      </Link>
    ),
  },
  { id: 'status', header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  {
    id: 'progress',
    header: 'Progress',
    cell: ({ row: { original: job } }) => <JobProgress job={job} label={`Progress of ${job.title}`} />,
  },
  { id: 'results', header: 'Results', cell: ({ row }) => formatNumber(row.original.results_count) },
  {
    id: 'created',
    header: 'Submitted',
    cell: ({ row }) => (
      <time dateTime={row.original.created_at} title={formatDateTime(row.original.created_at)}>
        {formatRelative(row.original.created_at)}
      </time>
    ),
  },
  {
    id: 'message',
    header: 'Latest',
    cell: ({ row: { original: job } }) => (
      <span className="block max-w-72 truncate text-muted-foreground" title={job.error ?? job.message ?? undefined}>
        {job.error ?? job.message ?? '—'}
      </span>
    ),
  },
];

/**
 * The jobs of the client, one type at a time (the API lists maps-scrape and research jobs apart), newest first:
 * state and progress live (events redraw a job's state at once and refetch the page; progress is read every few
 * seconds while a job shown moves), filters and paging in the URL, and the two submit dialogs.
 */
export function JobsPage() {
  const search = jobsListRoute.useSearch();
  const navigate = useNavigate({ from: jobsListRoute.fullPath });
  const queryClient = useQueryClient();
  const list = useQuery(jobsListQuery(search));
  useEffect(
    () => onLiveEvent((event) => event.type.startsWith('job.') && applyJobEvent(queryClient, event)),
    [queryClient],
  );

  const setSearch = (next: Partial<JobsSearch>) =>
    void navigate({ search: (prev: JobsSearch) => ({ ...prev, ...next }) });
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / search.page_size));
  const statuses = STATUSES[search.type];
  const rows = useMemo(() => list.data?.rows ?? [], [list.data]);

  return (
    <>
      <PageHeader
        title="Jobs"
        description="Maps-scrape and research jobs of your workspace, live."
        actions={
          <>
            <SubmitMapsJob />
            <SubmitResearchJob />
          </>
        }
      />
      <form
        className="mb-3 flex flex-wrap items-end gap-3"
        role="search"
        aria-label="Filter jobs"
        onSubmit={(e) => e.preventDefault()}
      >
        <div className="flex flex-col gap-1">
          <Label htmlFor="jobs-type">Type</Label>
          <NativeSelect
            id="jobs-type"
            value={search.type}
            onChange={(e) => setSearch({ type: e.target.value as JobsSearch['type'], status: undefined, page: 1 })}
            className="w-40"
          >
            {JOB_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABEL[t]}
              </option>
            ))}
          </NativeSelect>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="jobs-status">Status</Label>
          <NativeSelect
            id="jobs-status"
            value={search.status && statuses.includes(search.status) ? search.status : ''}
            onChange={(e) => setSearch({ status: (e.target.value || undefined) as JobsSearch['status'], page: 1 })}
            className="w-40"
          >
            <option value="">Any status</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </NativeSelect>
        </div>
      </form>
      <DataTable
        label={`${TYPE_LABEL[search.type]} jobs`}
        columns={columns}
        data={rows}
        getRowId={(job) => job.id}
        isLoading={list.isPending}
        error={list.error}
        retry={() => void list.refetch()}
        rowHeight={48}
        empty={
          <Empty title={search.status ? `No ${search.status} ${search.type} jobs` : `No ${search.type} jobs yet`}>
            Submit one with the buttons above.
          </Empty>
        }
        footer={
          <>
            <p className="text-sm text-muted-foreground" aria-live="polite">
              {total ? `Page ${search.page} of ${pages} · ${formatNumber(total)} jobs` : 'No jobs'}
            </p>
            <nav aria-label="Pages of jobs" className="flex items-center gap-2">
              <Label htmlFor="jobs-page-size" className="text-muted-foreground">
                Per page
              </Label>
              <NativeSelect
                id="jobs-page-size"
                value={search.page_size}
                onChange={(e) => setSearch({ page_size: Number(e.target.value), page: 1 })}
                className="w-20"
              >
                {PAGE_SIZES.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </NativeSelect>
              <Button
                variant="outline"
                size="sm"
                disabled={search.page <= 1}
                onClick={() => setSearch({ page: search.page - 1 })}
              >
                <ChevronLeft aria-hidden /> Previous
              </Button>
              <Button
                variant="outline"
                size="sm"
                disabled={search.page >= pages}
                onClick={() => setSearch({ page: search.page + 1 })}
              >
                Next <ChevronRight aria-hidden />
              </Button>
            </nav>
          </>
        }
      />
    </>
  );
}

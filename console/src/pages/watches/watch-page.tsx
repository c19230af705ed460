import { useEffect, useMemo, type ReactNode } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { ArrowLeft } from 'lucide-react';
import { onLiveEvent } from '@/api/live-events';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Pager } from '@/components/pager';
import { Empty, ErrorState, Loading, PageHeader } from '@/components/states';
import { Badge, Card } from '@/components/ui/card';
import { formatDateTime, formatNumber } from '@/lib/format';
import { describeCadence, inZone } from './cadence';
import { PAGE_SIZE, watchQuery, watchRunsQuery, type Watch, type WatchRun } from './queries';
import { watchRoute } from './routes';
import { WatchActions } from './watch-actions';
import { StateBadge, watchTarget } from './watches-page';

/**
 * A run's leads: the leads list cannot filter by refs or by job, so the link goes to the run's job, whose page
 * lists the job's results (its businesses or companies).
 */
function JobLink({ jobId, jobType, children }: { jobId: string; jobType: Watch['job_type']; children: ReactNode }) {
  return (
    <Link
      to="/jobs/$jobId"
      params={{ jobId }}
      search={{ type: jobType, page: 1 }}
      className="text-primary underline-offset-4 hover:underline"
      onClick={(e) => e.stopPropagation()}
    >
      {children}
    </Link>
  );
}

const STATUS_TONE = {
  running: 'info',
  completed: 'success',
  failed: 'danger',
  cancelled: 'neutral',
  skipped: 'warning',
} as const;

function Setting({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-0.5 sm:flex-row sm:gap-3">
      <dt className="text-sm text-muted-foreground sm:w-44 sm:shrink-0">{name}</dt>
      <dd className="min-w-0 break-words text-sm">{children}</dd>
    </div>
  );
}

function Settings({ watch }: { watch: Watch }) {
  const m = watch.maps_scrape;
  const creator = watch.creator;
  return (
    <Card>
      <h2 className="mb-3 text-lg font-semibold">Settings</h2>
      <dl className="flex flex-col gap-2">
        <Setting name="State">
          <StateBadge watch={watch} />
        </Setting>
        <Setting name="Job">{watch.job_type === 'maps-scrape' ? 'Maps scrape' : 'Research'}</Setting>
        {m && (
          <>
            <Setting name="Query">{m.query}</Setting>
            <Setting name="Country">{m.country_code}</Setting>
            <Setting name="Regions">{m.region_codes?.length ? m.region_codes.join(', ') : 'The whole country'}</Setting>
            <Setting name="Most locations">
              {m.max_locations ? formatNumber(m.max_locations) : 'Every location'}
            </Setting>
            <Setting name="Most results">{m.max_results ? formatNumber(m.max_results) : 'No cap'}</Setting>
            {m.language && <Setting name="Language">{m.language}</Setting>}
          </>
        )}
        {watch.research && (
          <Setting name="Companies">
            <ul className="list-inside list-disc">
              {watch.research.companies.map((c, i) => (
                <li key={i}>
                  {c.name}
                  {c.domain ? ` (${c.domain})` : ''}
                  {c.country_code ? `, ${c.country_code}` : ''}
                </li>
              ))}
            </ul>
          </Setting>
        )}
        <Setting name="Cadence">
          {describeCadence(watch.cadence)}
          {watch.cadence.cron && <code className="ml-2 rounded bg-muted px-1 text-xs">{watch.cadence.cron}</code>}
        </Setting>
        <Setting name="Catch-up window">{formatNumber(watch.catchup_window_seconds)} s</Setting>
        <Setting name="Webhook">{watch.webhook_url ?? 'None'}</Setting>
        <Setting name="Runs for">{creator ? `${creator.kind} ${creator.id}` : '—'}</Setting>
        <Setting name="Schedule">
          <code className="text-xs">{watch.schedule_id}</code>
        </Setting>
        <Setting name="Created">{formatDateTime(watch.created_at)}</Setting>
        <Setting name="Updated">{formatDateTime(watch.updated_at)}</Setting>
      </dl>
    </Card>
  );
}

function NextRuns({ watch }: { watch: Watch }) {
  const zone = watch.cadence.cron ? (watch.cadence.time_zone ?? 'UTC') : null;
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <Card>
      <h2 className="mb-3 text-lg font-semibold">Next runs</h2>
      {watch.state === 'paused' ? (
        <p className="text-sm text-muted-foreground">None while the watch is paused.</p>
      ) : watch.next_runs === undefined ? (
        <p className="text-sm text-muted-foreground">The scheduler did not say in time; reload to see them.</p>
      ) : watch.next_runs.length === 0 ? (
        <p className="text-sm text-muted-foreground">None scheduled.</p>
      ) : (
        <ol aria-label="Next runs" className="flex flex-col gap-1 text-sm">
          {watch.next_runs.slice(0, 5).map((run) => (
            <li key={run}>
              <time dateTime={run}>{formatDateTime(run)}</time>
              {zone && zone !== own && (
                <span className="text-muted-foreground">
                  {' '}
                  ({inZone(new Date(run), zone)} {zone})
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

export function WatchPage() {
  const { watchId } = watchRoute.useParams();
  const { runs_page } = watchRoute.useSearch();
  const page = runs_page ?? 1;
  const navigate = useNavigate({ from: watchRoute.fullPath });
  const queryClient = useQueryClient();
  const watch = useQuery(watchQuery(watchId));
  const runs = useQuery(watchRunsQuery(watchId, page));
  const jobType = watch.data?.job_type ?? 'maps-scrape';

  // A run is a job: its queueing, start and end change the runs (watch.new_leads comes only when it found some).
  useEffect(
    () =>
      onLiveEvent((event) => {
        if (event.type.startsWith('job.') || event.type === 'watch.new_leads')
          void queryClient.invalidateQueries({ queryKey: ['watches', 'runs', watchId] });
        if (event.type === 'watch.new_leads' || event.type === 'job.completed')
          void queryClient.invalidateQueries({ queryKey: ['watches', 'detail', watchId] });
      }),
    [queryClient, watchId],
  );

  const columns = useMemo<ColumnDef<WatchRun>[]>(
    () => [
      {
        header: 'Scheduled for',
        cell: ({ row }) => (
          <time dateTime={row.original.scheduled_at}>{formatDateTime(row.original.scheduled_at)}</time>
        ),
      },
      {
        header: 'Status',
        cell: ({ row }) => (
          <span className="flex flex-col">
            <Badge tone={STATUS_TONE[row.original.status]}>{row.original.status}</Badge>
            {row.original.skip_reason && (
              <span className="text-xs text-muted-foreground">{row.original.skip_reason}</span>
            )}
          </span>
        ),
      },
      { header: 'Results', cell: ({ row }) => formatNumber(row.original.results_count) },
      {
        header: 'New leads',
        cell: ({ row }) => {
          const run = row.original;
          const count = `${formatNumber(run.new_leads_count)} new lead${run.new_leads_count === 1 ? '' : 's'}`;
          if (run.status === 'running') return <span className="text-muted-foreground">Counted when it ends</span>;
          return run.job_id && run.new_leads_count > 0 ? (
            <JobLink jobId={run.job_id} jobType={jobType}>
              {count}
            </JobLink>
          ) : (
            count
          );
        },
      },
      {
        header: 'Job',
        cell: ({ row }) =>
          row.original.job_id ? (
            <JobLink jobId={row.original.job_id} jobType={jobType}>
              <code className="text-xs">{row.original.job_id.slice(0, 8)}</code>
            </JobLink>
          ) : (
            'None'
          ),
      },
      { header: 'Started', cell: ({ row }) => formatDateTime(row.original.started_at) },
      { header: 'Ended', cell: ({ row }) => formatDateTime(row.original.completed_at) },
    ],
    [jobType],
  );

  if (watch.isLoading) return <Loading />;
  if (watch.error || !watch.data) return <ErrorState error={watch.error} retry={() => void watch.refetch()} />;
  const w = watch.data;
  return (
    <>
      <Link
        to="/watches"
        className="mb-2 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground"
      >
        <ArrowLeft className="size-4" aria-hidden /> Watches
      </Link>
      <PageHeader
        title={w.name}
        description={`${w.job_type === 'maps-scrape' ? 'Maps scrape' : 'Research'} of ${watchTarget(w)}, ${describeCadence(w.cadence)}`}
        actions={<WatchActions watch={w} onDeleted={() => void navigate({ to: '/watches', search: {} })} />}
      />
      <div className="mb-6 grid gap-4 lg:grid-cols-[2fr_1fr]">
        <Settings watch={w} />
        <NextRuns watch={w} />
      </div>
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-lg font-semibold">Runs</h2>
        <ApiCallButton
          call={{
            operationId: 'listWatchRuns',
            method: 'GET',
            path: '/api/v1/dashboard/client/watches/{watch_id}/runs',
            pathParams: { watch_id: watchId },
            query: { page, page_size: PAGE_SIZE },
          }}
        />
      </div>
      <p className="mb-2 text-sm text-muted-foreground">
        Each run's new leads are those no earlier job of yours had found; they are among its job's results, which the
        job's page lists.
      </p>
      <DataTable
        label="Runs"
        columns={columns}
        data={runs.data?.runs ?? []}
        getRowId={(r) => r.run_id}
        isLoading={runs.isLoading}
        error={runs.error}
        retry={() => void runs.refetch()}
        empty={<Empty title="No runs yet">The first run starts at its next time, or now with “Run now”.</Empty>}
        footer={
          runs.data && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={runs.data.total}
              onPage={(to) => void navigate({ search: (prev) => ({ ...prev, runs_page: to > 1 ? to : undefined }) })}
            />
          )
        }
      />
    </>
  );
}

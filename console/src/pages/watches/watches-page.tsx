import { useMemo } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Label, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber } from '@/lib/format';
import { describeCadence } from './cadence';
import { PAGE_SIZE, watchesListQuery, type Watch } from './queries';
import { watchesRoute } from './routes';

export function StateBadge({ watch }: { watch: Pick<Watch, 'state' | 'paused_reason'> }) {
  if (watch.state === 'active') return <Badge tone="success">Active</Badge>;
  const why =
    watch.paused_reason === 'creator_deactivated'
      ? ' (its creator was deactivated)'
      : watch.paused_reason === 'creator_token_revoked'
        ? ' (its creator’s agent token was revoked)'
        : '';
  return <Badge tone="warning">Paused{why}</Badge>;
}

/** What a watch's job looks for, in a line. */
export function watchTarget(watch: Watch): string {
  if (watch.maps_scrape) {
    const m = watch.maps_scrape;
    const where = m.region_codes?.length ? m.region_codes.join(', ') : m.country_code;
    return `“${m.query}” in ${where}`;
  }
  const companies = watch.research?.companies ?? [];
  return `${formatNumber(companies.length)} compan${companies.length === 1 ? 'y' : 'ies'}`;
}

export function WatchesPage() {
  const search = watchesRoute.useSearch();
  const navigate = useNavigate({ from: watchesRoute.fullPath });
  const page = search.page ?? 1;
  const list = useQuery(watchesListQuery(search.state, page));
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE_SIZE)) : 1;

  const columns = useMemo<ColumnDef<Watch>[]>(
    () => [
      {
        header: 'Name',
        cell: ({ row }) => (
          <Link
            to="/watches/$watchId"
            params={{ watchId: row.original.watch_id }}
            className="font-medium text-primary underline-offset-4 hover:underline"
            onClick={(e) => e.stopPropagation()}
          >
            {row.original.name}
          </Link>
        ),
      },
      {
        header: 'Job',
        cell: ({ row }) => (
          <span>
            {row.original.job_type === 'maps-scrape' ? 'Maps scrape' : 'Research'}{' '}
            <span className="text-muted-foreground">{watchTarget(row.original)}</span>
          </span>
        ),
      },
      { header: 'Cadence', cell: ({ row }) => describeCadence(row.original.cadence) },
      { header: 'State', cell: ({ row }) => <StateBadge watch={row.original} /> },
      { header: 'Created', cell: ({ row }) => formatDateTime(row.original.created_at) },
    ],
    [],
  );

  const setSearch = (next: { state?: 'active' | 'paused'; page?: number }) =>
    void navigate({ search: (prev) => ({ ...prev, ...next }) });

  return (
    <>
      <PageHeader
        title="Watches"
        description="Saved jobs that run on a cadence; each run reports the leads it saw first."
        actions={
          <>
            <ApiCallButton
              call={{
                operationId: 'listWatches',
                method: 'GET',
                path: '/api/v1/dashboard/client/watches',
                query: { state: search.state, page, page_size: PAGE_SIZE },
              }}
            />
            <Button asChild>
              <Link to="/watches/new">
                <Plus aria-hidden /> New watch
              </Link>
            </Button>
          </>
        }
      />
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <Label htmlFor="watch-state">State</Label>
          <NativeSelect
            id="watch-state"
            className="w-40"
            value={search.state ?? ''}
            onChange={(e) =>
              setSearch({ state: (e.target.value || undefined) as 'active' | 'paused' | undefined, page: undefined })
            }
          >
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
          </NativeSelect>
        </div>
      </div>
      <DataTable
        label="Watches"
        columns={columns}
        data={list.data?.watches ?? []}
        getRowId={(w) => w.watch_id}
        isLoading={list.isLoading}
        error={list.error}
        retry={() => void list.refetch()}
        onRowClick={(w) => void navigate({ to: '/watches/$watchId', params: { watchId: w.watch_id } })}
        empty={
          <Empty title={search.state ? `No ${search.state} watches` : 'No watches yet'}>
            A watch runs a maps scrape or a research job on a cadence and tells you what is new.{' '}
            <Link to="/watches/new" className="text-primary underline">
              Create one
            </Link>
            .
          </Empty>
        }
        footer={
          <>
            <span className="text-sm text-muted-foreground" aria-live="polite">
              {list.data ? `${formatNumber(list.data.total)} watches · page ${page} of ${pages}` : ' '}
            </span>
            <span className="flex gap-2">
              <Button
                variant="outline"
                size="sm"
                disabled={page <= 1}
                onClick={() => setSearch({ page: page - 1 > 1 ? page - 1 : undefined })}
              >
                Previous
              </Button>
              <Button
                variant="outline"
                size="sm"
                disabled={page >= pages}
                onClick={() => setSearch({ page: page + 1 })}
              >
                Next
              </Button>
            </span>
          </>
        }
      />
    </>
  );
}

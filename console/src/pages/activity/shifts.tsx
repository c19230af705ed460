import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { X } from 'lucide-react';
import { toast } from 'sonner';
import { selectedClient } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { DownloadLink } from '@/components/download-link';
import { DataTable } from '@/components/data-table';
import { Empty } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Field, Input, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber } from '@/lib/format';
import { ACTOR_ROLES, exportUrl, shiftsQuery, type Shift, type ShiftQuery, type ShiftRole } from './queries';
import { activityRoute } from './routes';
import { ShiftPanel } from './shift-panel';

const actorLabel = (s: Pick<Shift, 'actor_name' | 'actor_kind' | 'actor_id'>) =>
  s.actor_name ?? `${s.actor_kind} ${s.actor_id.slice(0, 8)}`;

/** Shifts of the window (listShifts), filtered by actor, role and gap as the URL says; the CSV of the same. */
export function ShiftsTab() {
  const search = activityRoute.useSearch();
  const navigate = useNavigate({ from: activityRoute.fullPath });
  const clientKey = selectedClient();
  const query: ShiftQuery = {
    date: search.date,
    from: search.from,
    to: search.to,
    actor_id: search.actor_id,
    role: search.role,
    gap_minutes: search.gap_minutes,
  };
  const list = useQuery(shiftsQuery(clientKey, query));
  const [from, setFrom] = useState(search.from ?? search.date ?? '');
  const [to, setTo] = useState(search.to ?? search.date ?? '');
  const [gap, setGap] = useState(search.gap_minutes ? String(search.gap_minutes) : '');

  const setSearch = (next: Partial<typeof search>) => void navigate({ search: (prev) => ({ ...prev, ...next }) });
  const openShift = (s: Shift) =>
    setSearch({ shift_actor: s.actor_id, shift_start: s.started_at, shift_end: s.ended_at });

  const applyWindow = (e: FormEvent) => {
    e.preventDefault();
    const gapMinutes = gap ? Number(gap) : undefined;
    if (gapMinutes !== undefined && !(Number.isInteger(gapMinutes) && gapMinutes >= 1 && gapMinutes <= 1440))
      return void toast.error('The gap is a whole number of minutes from 1 to 1440');
    setSearch({ date: undefined, from: from || undefined, to: to || undefined, gap_minutes: gapMinutes });
  };

  const columns = useMemo<ColumnDef<Shift>[]>(
    () => [
      {
        header: 'Actor',
        cell: ({ row }) => (
          <button
            type="button"
            className="text-left font-medium text-primary underline-offset-4 hover:underline"
            onClick={(e) => {
              e.stopPropagation();
              openShift(row.original);
            }}
          >
            {actorLabel(row.original)}
            <span className="block text-xs font-normal text-muted-foreground">{row.original.actor_kind}</span>
          </button>
        ),
      },
      { header: 'Role', cell: ({ row }) => ACTOR_ROLES[row.original.role] },
      { header: 'Started', cell: ({ row }) => formatDateTime(row.original.started_at) },
      { header: 'Ended', cell: ({ row }) => formatDateTime(row.original.ended_at) },
      { header: 'Minutes', cell: ({ row }) => formatNumber(row.original.duration_minutes) },
      { header: 'Events', cell: ({ row }) => formatNumber(row.original.event_count) },
      { header: 'Shipped', cell: ({ row }) => formatNumber(row.original.shipped_count) },
      {
        header: 'Only',
        cell: ({ row }) => (
          <Button
            variant="ghost"
            size="sm"
            aria-label={`Only ${actorLabel(row.original)}`}
            onClick={(e) => {
              e.stopPropagation();
              setSearch({ actor_id: row.original.actor_id });
            }}
          >
            This actor
          </Button>
        ),
      },
    ],
    // setSearch and openShift only navigate.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );

  const actorShown = search.actor_id ? (list.data?.shifts.find((s) => s.actor_id === search.actor_id) ?? null) : null;
  const href = exportUrl(query);
  const fileName = `shifts-${list.data?.from ?? 'today'}-${list.data?.to ?? 'today'}.csv`;
  const open =
    search.shift_actor && search.shift_start && search.shift_end
      ? { actor_id: search.shift_actor, started_at: search.shift_start, ended_at: search.shift_end }
      : null;

  return (
    <div className="flex flex-col gap-3">
      <form onSubmit={applyWindow} className="flex flex-wrap items-end gap-3" aria-label="Shift window">
        <Field id="shifts-from" label="From (UTC day)">
          <Input id="shifts-from" type="date" className="w-40" value={from} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field id="shifts-to" label="To (UTC day)">
          <Input id="shifts-to" type="date" className="w-40" value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <Field id="shifts-gap" label="Gap (minutes)">
          <Input
            id="shifts-gap"
            type="number"
            min={1}
            max={1440}
            placeholder="30"
            className="w-28"
            value={gap}
            onChange={(e) => setGap(e.target.value)}
          />
        </Field>
        <Button type="submit" variant="outline">
          Show
        </Button>
        <Field id="shifts-role" label="Role">
          <NativeSelect
            id="shifts-role"
            className="w-40"
            value={search.role ?? ''}
            onChange={(e) => setSearch({ role: (e.target.value || undefined) as ShiftRole | undefined })}
          >
            <option value="">All roles</option>
            {Object.entries(ACTOR_ROLES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </NativeSelect>
        </Field>
      </form>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-muted-foreground" aria-live="polite">
          {list.data
            ? `${formatNumber(list.data.total)} shifts from ${list.data.from} to ${list.data.to} (UTC), a pause over ${list.data.gap_minutes} minutes splitting them`
            : ' '}
        </p>
        <div className="flex flex-wrap items-center gap-2">
          {search.actor_id && (
            <Button
              variant="secondary"
              size="sm"
              aria-label={`Show every actor (now only ${actorShown ? actorLabel(actorShown) : 'one actor'})`}
              onClick={() => setSearch({ actor_id: undefined })}
            >
              Only {actorShown ? actorLabel(actorShown) : 'one actor'} <X aria-hidden />
            </Button>
          )}
          <DownloadLink href={href} fileName={fileName}>
            Export CSV
          </DownloadLink>
          <ApiCallButton
            call={{
              operationId: 'listShifts',
              method: 'GET',
              path: '/api/v1',
              query,
              headers: clientKey ? { 'X-Selected-Client-Id': clientKey } : undefined,
            }}
          />
        </div>
      </div>
      <DataTable
        label="Shifts"
        columns={columns}
        data={list.data?.shifts ?? []}
        getRowId={(s) => `${s.actor_id}-${s.started_at}`}
        isLoading={list.isLoading}
        error={list.error}
        retry={() => void list.refetch()}
        onRowClick={openShift}
        empty={
          <Empty title="No shifts in this window">
            A shift is a stretch of someone&apos;s activity: requests that change something, jobs and content done.
          </Empty>
        }
      />
      {open && (
        <ShiftPanel
          shift={open}
          onClose={() => setSearch({ shift_actor: undefined, shift_start: undefined, shift_end: undefined })}
        />
      )}
    </div>
  );
}

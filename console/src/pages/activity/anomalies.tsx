import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { selectedClient } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Empty } from '@/components/states';
import { Badge } from '@/components/ui/card';
import { formatDateTime, formatNumber } from '@/lib/format';
import type { components } from '@contract';
import { anomaliesQuery } from './queries';

type Anomaly = components['schemas']['Anomaly'];
const TONE = { low: 'neutral', medium: 'warning', high: 'danger' } as const;

/** Findings of the last 7 days against a 30-day baseline (listAnomalies), most severe first as the API ranks them. */
export function AnomaliesTab() {
  const clientKey = selectedClient();
  const report = useQuery(anomaliesQuery(clientKey));
  const columns = useMemo<ColumnDef<Anomaly>[]>(
    () => [
      { header: 'Day', cell: ({ row }) => row.original.day },
      {
        header: 'Severity',
        cell: ({ row }) => <Badge tone={TONE[row.original.severity]}>{row.original.severity}</Badge>,
      },
      { header: 'What', cell: ({ row }) => row.original.message },
      { header: 'Metric', cell: ({ row }) => row.original.metric.replace(/_/g, ' ') },
      {
        header: 'Actor',
        cell: ({ row }) =>
          row.original.actor_id ? (
            <span className="font-mono text-xs">{row.original.actor_id.slice(0, 8)}</span>
          ) : (
            'Whole client'
          ),
      },
      { header: 'Observed', cell: ({ row }) => formatNumber(row.original.observed) },
      {
        header: 'Usual',
        cell: ({ row }) =>
          `${formatNumber(Math.round(row.original.baseline_mean * 10) / 10)} ± ${formatNumber(Math.round(row.original.baseline_stddev * 10) / 10)}`,
      },
      { header: 'z', cell: ({ row }) => formatNumber(Math.round(row.original.z_score * 10) / 10) },
    ],
    [],
  );
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-muted-foreground" aria-live="polite">
          {report.data
            ? `${report.data.window_from} to ${report.data.window_to} against the ${report.data.baseline_days} days before; computed ${formatDateTime(report.data.generated_at)}`
            : ' '}
        </p>
        <ApiCallButton
          call={{
            operationId: 'listAnomalies',
            method: 'GET',
            path: '/api/v1/anomalies',
            headers: clientKey ? { 'X-Selected-Client-Id': clientKey } : undefined,
          }}
        />
      </div>
      <DataTable
        label="Anomalies"
        columns={columns}
        data={report.data?.anomalies ?? []}
        getRowId={(a) => `${a.day}-${a.metric}-${a.actor_id ?? 'client'}`}
        isLoading={report.isLoading}
        error={report.error}
        retry={() => void report.refetch()}
        empty={
          <Empty title="No anomalies">
            Nothing this week is 2 standard deviations or more away from the usual of the 30 days before.
          </Empty>
        }
      />
    </div>
  );
}

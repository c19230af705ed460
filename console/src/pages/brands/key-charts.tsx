import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { Chart } from '@/components/chart';
import { Loaded } from '@/components/states';
import { Field, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber } from '@/lib/format';
import type { components } from '@contract';
import { money, Section, type Brand } from './shared';

type Key = components['schemas']['IntegrationKey'];
type Spend = components['schemas']['Spend'];

/** The days of history the picker offers (the API's `days`, 1 to 365). */
const DAY_CHOICES = [7, 30, 90, 365];

const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** A history row's date (a UTC day, YYYY-MM-DD) as the user reads it. */
const formatDay = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? date : dayFormat.format(d);
};

function PeriodSummary({ spend }: { spend: Spend }) {
  return (
    <p className="text-sm">
      {money(spend.amount, spend.currency)} spent this {spend.period} period ({formatDateTime(spend.period_start)} to{' '}
      {formatDateTime(spend.period_end)})
      {spend.spend_limit_amount !== null && <> of a {money(spend.spend_limit_amount, spend.currency)} limit</>}
      {spend.limit_reached && <strong className="text-destructive"> — limit reached</strong>}.
    </p>
  );
}

/**
 * Usage and spend over time of one key (getIntegrationSpend: amount and calls per day) and of all the brand's keys
 * of its provider (getProviderSpend), drawn from the API's daily history as it answers it, for the days chosen.
 */
export function KeyCharts({
  brand,
  keys,
  chosen,
  days,
  onChoose,
}: {
  brand: Brand;
  keys: Key[];
  chosen: Key;
  days: number;
  onChoose: (next: { key?: number; days?: number }) => void;
}) {
  const keySpend = useQuery({
    queryKey: ['brands', 'keys', brand.brand_id, 'spend', chosen.integration_id, days],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/brands/{brand_id}/integrations/{integration_id}/spend', {
          params: { path: { brand_id: brand.brand_id, integration_id: chosen.integration_id }, query: { days } },
        }),
      ),
  });
  const providerSpend = useQuery({
    queryKey: ['brands', 'keys', brand.brand_id, 'provider-spend', chosen.provider_name, days],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/brands/{brand_id}/integrations/spend/provider/{provider_name}', {
          params: { path: { brand_id: brand.brand_id, provider_name: chosen.provider_name }, query: { days } },
        }),
      ),
  });
  const currency = keySpend.data?.currency ?? chosen.currency;
  const usd = (n: number) => money(n, currency);
  return (
    <Section
      id="key-charts"
      title="Usage and spend over time"
      description="Per UTC day, as the service counts relayed calls and their spend (billing syncs included)."
      actions={
        <>
          <ApiCallButton
            label="Key spend"
            call={{
              operationId: 'getIntegrationSpend',
              method: 'GET',
              path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/spend',
              pathParams: { brand_id: brand.brand_id, integration_id: chosen.integration_id },
              query: { days },
            }}
          />
          <ApiCallButton
            label="Provider spend"
            call={{
              operationId: 'getProviderSpend',
              method: 'GET',
              path: '/api/v1/brands/{brand_id}/integrations/spend/provider/{provider_name}',
              pathParams: { brand_id: brand.brand_id, provider_name: chosen.provider_name },
              query: { days },
            }}
          />
        </>
      }
    >
      <div className="flex flex-wrap gap-3">
        <Field id="chart-key" label="Key" className="min-w-48">
          <NativeSelect
            id="chart-key"
            value={chosen.integration_id}
            onChange={(e) => onChoose({ key: Number(e.target.value) })}
          >
            {keys.map((k) => (
              <option key={k.integration_id} value={k.integration_id}>
                {k.key_label} ({k.provider_name})
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Field id="chart-days" label="Days of history" className="min-w-40">
          <NativeSelect id="chart-days" value={days} onChange={(e) => onChoose({ days: Number(e.target.value) })}>
            {[...new Set([...DAY_CHOICES, days])]
              .sort((a, b) => a - b)
              .map((d) => (
                <option key={d} value={d}>
                  Last {formatNumber(d)} days
                </option>
              ))}
          </NativeSelect>
        </Field>
      </div>
      <Loaded query={keySpend} label="Loading the key's spend…">
        {(data) => (
          <>
            <PeriodSummary spend={data} />
            <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
              <Chart
                title="Spend per day"
                data={data.history}
                category="date"
                series={[{ key: 'amount', label: 'Spend', format: usd }]}
                formatCategory={formatDay}
                kind="bar"
              />
              <Chart
                title="Calls per day"
                data={data.history}
                category="date"
                series={[{ key: 'calls', label: 'Calls' }]}
                formatCategory={formatDay}
                kind="line"
              />
            </div>
          </>
        )}
      </Loaded>
      <Loaded query={providerSpend} label="Loading the provider's spend…">
        {(data) => (
          <Chart
            title={`Spend per day, all ${chosen.provider_name} keys`}
            data={data.history}
            category="date"
            series={[{ key: 'amount', label: 'Spend', format: usd }]}
            formatCategory={formatDay}
            kind="bar"
          />
        )}
      </Loaded>
    </Section>
  );
}

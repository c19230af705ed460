import { useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery } from '@/api/session';
import { selectedClient } from '@/api/client';
import { PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Input, Label, NativeSelect } from '@/components/ui/input';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import {
  CampaignsReport,
  KpisReport,
  MobileReport,
  ProductReport,
  SocialReport,
  WebReport,
  reportQuery,
} from './report-views';
import { PERIODS, REPORT_VIEWS, reportsRoute, type ReportView, type ReportsSearch } from './routes';

const VIEW_LABEL: Record<ReportView, string> = {
  kpis: 'KPIs',
  product: 'Product analytics',
  campaigns: 'Campaigns',
  web: 'Web analytics',
  mobile: 'Mobile',
  social: 'Social',
};

const PERIOD_LABEL: Record<(typeof PERIODS)[number], string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last_7_days: 'Last 7 days',
  last_30_days: 'Last 30 days',
  last_90_days: 'Last 90 days',
  month_to_date: 'Month to date',
  year_to_date: 'Year to date',
};

const VIEWS = {
  kpis: KpisReport,
  product: ProductReport,
  campaigns: CampaignsReport,
  web: WebReport,
  mobile: MobileReport,
  social: SocialReport,
};

/**
 * The administration reports (super_admin and brand_admin): KPIs from the service's own records and the figures of
 * the analytics providers, each drawn as charts beside their figures, for the window and country in the URL. A
 * brand_admin sees their own client's figures; a super_admin the platform's, or the client acted for.
 */
export function ReportsPage() {
  const search = reportsRoute.useSearch();
  const navigate = useNavigate({ from: reportsRoute.fullPath });
  const me = useQuery(meQuery).data;
  const setSearch = (next: Partial<ReportsSearch>) =>
    void navigate({ search: (prev: ReportsSearch) => ({ ...prev, ...next }) });
  const custom = Boolean(search.from || search.to);

  const scope =
    me?.role === 'brand_admin'
      ? 'Your client’s figures.'
      : selectedClient()
        ? 'The figures of the client you act for (choose no client under “Acting for” for the platform’s).'
        : 'The platform’s figures, every client together.';
  const View = VIEWS[search.view];

  return (
    <>
      <PageHeader title="Reports" description={scope} />
      <div className="mb-4 flex flex-wrap items-end gap-3" role="search" aria-label="Report filters">
        <div className="flex flex-col gap-1">
          <Label htmlFor="reports-period">Period</Label>
          <NativeSelect
            id="reports-period"
            value={custom ? 'custom' : search.period}
            onChange={(e) =>
              e.target.value === 'custom'
                ? setSearch({ from: search.from ?? daysAgo(29), to: search.to ?? daysAgo(0) })
                : setSearch({ period: e.target.value as ReportsSearch['period'], from: undefined, to: undefined })
            }
            className="w-44"
          >
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                {PERIOD_LABEL[p]}
              </option>
            ))}
            <option value="custom">Custom days</option>
          </NativeSelect>
        </div>
        {custom && (
          <>
            <div className="flex flex-col gap-1">
              <Label htmlFor="reports-from">First day</Label>
              <Input
                id="reports-from"
                type="date"
                value={search.from ?? ''}
                max={search.to}
                onChange={(e) => setSearch({ from: e.target.value || undefined })}
                className="w-40"
              />
            </div>
            <div className="flex flex-col gap-1">
              <Label htmlFor="reports-to">Last day</Label>
              <Input
                id="reports-to"
                type="date"
                value={search.to ?? ''}
                min={search.from}
                onChange={(e) => setSearch({ to: e.target.value || undefined })}
                className="w-40"
              />
            </div>
          </>
        )}
        <CountryFilter
          key={search.country ?? ''}
          country={search.country}
          apply={(country) => setSearch({ country })}
        />
      </div>
      <Tabs value={search.view} onValueChange={(v) => setSearch({ view: v as ReportView })}>
        <div className="mb-4">
          <TabsList aria-label="Reports" className="flex-wrap">
            {REPORT_VIEWS.map((v) => (
              <TabsTrigger key={v} value={v}>
                {VIEW_LABEL[v]}
              </TabsTrigger>
            ))}
          </TabsList>
        </div>
        <TabsContent value={search.view}>
          <View q={reportQuery(search)} />
        </TabsContent>
      </Tabs>
    </>
  );
}

/** A UTC day `n` days before today, as the API's dates are. */
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** The country picker: typed, then applied (Enter or Apply) when it is an ISO code, or empty for every country. */
function CountryFilter({ country: current, apply }: { country?: string; apply: (country?: string) => void }) {
  const [country, setCountry] = useState(current ?? '');
  const [countryError, setCountryError] = useState<string>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const code = country.trim().toUpperCase();
    if (code && !/^[A-Z]{2}$/.test(code)) return setCountryError('Two letters, an ISO 3166-1 code such as NL');
    setCountryError(undefined);
    apply(code || undefined);
  };
  return (
    <form className="flex flex-col gap-1" onSubmit={submit}>
      <Label htmlFor="reports-country">Country</Label>
      <div className="flex gap-2">
        <Input
          id="reports-country"
          value={country}
          onChange={(e) => setCountry(e.target.value)}
          placeholder="All"
          maxLength={2}
          autoCapitalize="characters"
          aria-describedby="reports-country-hint"
          aria-invalid={countryError ? true : undefined}
          className="w-20"
        />
        <Button type="submit" variant="outline" size="sm" className="h-9">
          Apply
        </Button>
      </div>
      <p id="reports-country-hint" className="text-xs text-muted-foreground">
        {countryError ?? 'ISO code, e.g. NL; empty for all'}
      </p>
    </form>
  );
}

import type { ReactNode } from 'react';
import { useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { RefreshCw } from 'lucide-react';
import { api, selectedClient, unwrap, type components } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Chart } from '@/components/chart';
import { Loaded } from '@/components/states';
import { Button } from '@/components/ui/button';
import { formatDateTime, formatNumber } from '@/lib/format';
import type { ApiCall } from '@/lib/api-call';
import { toast } from 'sonner';
import type { ReportView, ReportsSearch } from './routes';

type Schemas = components['schemas'];
type SourceStatus = Schemas['ProductAnalyticsMetrics']['source_status'];

/** The window and country of the URL as the report operations take them (`from`/`to` win over `period`). */
export function reportQuery(search: ReportsSearch) {
  const window =
    search.from || search.to
      ? { from: search.from, to: search.to }
      : { period: search.period as ReportsSearch['period'] };
  return { ...window, country: search.country };
}
export type ReportQuery = ReturnType<typeof reportQuery>;

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const formatPercent = (n: number) => percent.format(n);
const formatDay = (d: string) =>
  new Date(`${d}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** What each view reads: its operation and path, for the query and for "show the API call". */
const OPERATIONS = {
  kpis: { operationId: 'getKpis', path: '/api/v1/dashboard/admin/kpis' },
  product: { operationId: 'getProductAnalyticsMetrics', path: '/api/v1/dashboard/admin/product-analytics-metrics' },
  campaigns: { operationId: 'getCampaignsReport', path: '/api/v1/dashboard/admin/campaigns' },
  web: { operationId: 'getWebAnalytics', path: '/api/v1/dashboard/admin/web-analytics' },
  mobile: { operationId: 'getMobileSubscriptions', path: '/api/v1/dashboard/admin/mobile-subscriptions' },
  social: { operationId: 'getSocialReport', path: '/api/v1/dashboard/admin/social' },
} as const;

/** The parameters a view's operation takes: mobile subscriptions have no country, social accounts no window. */
export function viewQuery(view: ReportView, q: ReportQuery) {
  if (view === 'social') return {};
  if (view === 'mobile') return { period: q.period, from: q.from, to: q.to };
  return q;
}

/**
 * One report: its figures from the API (cached there about a minute; the query key holds the view, its parameters
 * and the client acted for), and "Refresh", which asks the API to bypass its cache and shows that answer.
 */
function useReport<T>(view: ReportView, q: ReportQuery, fetch: (refresh: boolean) => Promise<T>) {
  const queryClient = useQueryClient();
  const queryKey: QueryKey = ['reports', view, viewQuery(view, q), selectedClient()];
  const query = useQuery({ queryKey, queryFn: () => fetch(false) });
  const refresh = async () => {
    try {
      queryClient.setQueryData(queryKey, await fetch(true));
    } catch (error) {
      toast.error(describeError(error));
    }
  };
  return { query, refresh };
}

function ReportFrame({
  view,
  q,
  title,
  query,
  refresh,
  children,
}: {
  view: ReportView;
  q: ReportQuery;
  title: string;
  query: { data?: { generated_at: string; cached: boolean }; isPending: boolean; error: unknown; refetch: () => void };
  refresh: () => Promise<void>;
  children: () => ReactNode;
}) {
  const op = OPERATIONS[view];
  const call: ApiCall = { ...op, method: 'GET', query: viewQuery(view, q) };
  return (
    <section aria-labelledby={`report-${view}`} className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h2 id={`report-${view}`} className="text-lg font-semibold">
            {title}
          </h2>
          {query.data && (
            <p className="text-xs text-muted-foreground" aria-live="polite">
              Figures of {formatDateTime(query.data.generated_at)}
              {query.data.cached ? ' (from the cache)' : ''}
            </p>
          )}
        </div>
        <div className="flex items-center gap-2">
          <Button variant="outline" size="sm" onClick={() => void refresh()} disabled={query.isPending}>
            <RefreshCw aria-hidden /> Refresh
          </Button>
          <ApiCallButton call={{ ...call, query: { ...call.query, refresh: true } }} />
        </div>
      </div>
      <Loaded query={query} label={`Loading ${title.toLowerCase()}…`}>
        {() => children()}
      </Loaded>
    </section>
  );
}

const SOURCE_NAMES: Record<string, string> = {
  product: 'product-analytics provider',
  campaigns: 'outreach provider',
  web: 'web-analytics provider',
  mobile: 'mobile-subscriptions provider',
  social: 'social-media provider',
};

/** A source that gave no figures, in words (its figures are then zero, which would read as a real zero). */
function SourceState({ view, status }: { view: ReportView; status: SourceStatus }) {
  if (status === 'ok') return null;
  const source = SOURCE_NAMES[view];
  return (
    <div role="status" className="rounded-md border border-border bg-muted/40 p-4 text-sm">
      {status === 'not_configured' ? (
        <>
          <p className="font-medium">Not configured</p>
          <p className="text-muted-foreground">
            No {source} is set up for this view. The service&apos;s own accounts serve the platform&apos;s figures (a
            super admin acting for no client); a single client&apos;s view has none yet.
          </p>
        </>
      ) : (
        <>
          <p className="font-medium">Unavailable</p>
          <p className="text-muted-foreground">
            The {source} did not answer; try Refresh in a minute. No figures are shown meanwhile.
          </p>
        </>
      )}
    </div>
  );
}

/**
 * A third-party source's report: what its figures cover (the window, the country), the source's state in words, and
 * its figures only when it answered.
 */
function SourcedFigures({
  view,
  status,
  scope,
  children,
}: {
  view: ReportView;
  status: SourceStatus;
  scope: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <p className="text-sm text-muted-foreground">{scope}</p>
      <SourceState view={view} status={status} />
      {status === 'ok' && children}
    </>
  );
}

/** Headline figures as terms and values, a group named by `label`. */
function Figures({ label, items }: { label: string; items: [string, string][] }) {
  return (
    <div role="group" aria-label={label}>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4">
        {items.map(([term, value]) => (
          <div key={term} className="rounded-lg border border-border p-3">
            <dt className="text-xs text-muted-foreground">{term}</dt>
            <dd className="text-lg font-semibold tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

const windowText = (w: Schemas['KpiWindow']) => `${formatDay(w.from)} – ${formatDay(w.to)}`;

export function KpisReport({ q }: { q: ReportQuery }) {
  const { query, refresh } = useReport('kpis', q, (refresh) =>
    unwrap(api.GET('/api/v1/dashboard/admin/kpis', { params: { query: { ...q, refresh } } })),
  );
  return (
    <ReportFrame view="kpis" q={q} title="KPIs" query={query} refresh={refresh}>
      {() => {
        const k = query.data!;
        const t = k.totals;
        const byStatus = Object.entries(t.jobs_by_status).map(([status, jobs]) => ({ status, jobs }));
        const researchByStatus = Object.entries(t.research_jobs_by_status).map(([status, jobs]) => ({ status, jobs }));
        return (
          <>
            <p className="text-sm text-muted-foreground">
              {windowText(k.window)}
              {k.country ? ` · jobs and pins in ${k.country}` : ''}
            </p>
            <Figures
              label="Headline figures"
              items={[
                ['Maps-scrape jobs submitted', formatNumber(t.jobs_submitted)],
                ['Jobs completed', formatNumber(t.jobs_completed)],
                ['Jobs failed', formatNumber(t.jobs_failed)],
                ['Businesses found', formatNumber(t.businesses_found)],
                ['Research jobs submitted', formatNumber(t.research_jobs_submitted)],
                ['Companies researched', formatNumber(t.companies_researched)],
                ['Clients', formatNumber(t.clients)],
                ['Active clients', formatNumber(t.active_clients)],
                ['Pins claimed', formatNumber(t.pins_created)],
                ['Posts published', formatNumber(t.posts_published)],
                ['Pages published', formatNumber(t.pages_published)],
                ['Agents approved', formatNumber(t.agents_approved)],
                ['Active agents', formatNumber(t.active_agents)],
                ['Relay calls', formatNumber(t.relay_calls)],
                ['Relay spend', formatNumber(t.relay_spend)],
              ]}
            />
            <div className="grid gap-4 lg:grid-cols-2">
              <Chart
                title="Jobs completed per day"
                data={k.daily}
                category="date"
                categoryLabel="Day"
                formatCategory={formatDay}
                series={[{ key: 'jobs_completed', label: 'Jobs completed' }]}
              />
              <Chart
                title="Businesses found per day"
                data={k.daily}
                category="date"
                categoryLabel="Day"
                formatCategory={formatDay}
                series={[{ key: 'businesses_found', label: 'Businesses found' }]}
                kind="line"
              />
              <Chart
                title="Maps-scrape jobs by status"
                data={byStatus}
                category="status"
                categoryLabel="Status"
                series={[{ key: 'jobs', label: 'Jobs' }]}
              />
              <Chart
                title="Research jobs by status"
                data={researchByStatus}
                category="status"
                categoryLabel="Status"
                series={[{ key: 'jobs', label: 'Jobs' }]}
              />
            </div>
            {k.daily.length === 0 && (
              <p className="text-sm text-muted-foreground">
                The API gives a daily series for windows of at most 92 days.
              </p>
            )}
          </>
        );
      }}
    </ReportFrame>
  );
}

export function ProductReport({ q }: { q: ReportQuery }) {
  const { query, refresh } = useReport('product', q, (refresh) =>
    unwrap(api.GET('/api/v1/dashboard/admin/product-analytics-metrics', { params: { query: { ...q, refresh } } })),
  );
  return (
    <ReportFrame view="product" q={q} title="Product analytics" query={query} refresh={refresh}>
      {() => {
        const r = query.data!;
        return (
          <SourcedFigures
            view="product"
            status={r.source_status}
            scope={
              <>
                {windowText(r.window)}
                {r.country ? ` · ${r.country}` : ' · every country'}
              </>
            }
          >
            <>
              <Figures label="Product analytics totals" items={[['Events', formatNumber(r.total_events)]]} />
              <Chart
                title="Events by category"
                data={r.categories}
                category="category"
                categoryLabel="Category"
                series={[{ key: 'count', label: 'Events' }]}
              />
            </>
          </SourcedFigures>
        );
      }}
    </ReportFrame>
  );
}

export function CampaignsReport({ q }: { q: ReportQuery }) {
  const { query, refresh } = useReport('campaigns', q, (refresh) =>
    unwrap(api.GET('/api/v1/dashboard/admin/campaigns', { params: { query: { ...q, refresh } } })),
  );
  return (
    <ReportFrame view="campaigns" q={q} title="Campaigns" query={query} refresh={refresh}>
      {() => {
        const r = query.data!;
        return (
          <SourcedFigures
            view="campaigns"
            status={r.source_status}
            scope={
              <>
                {windowText(r.window)}
                {q.country ? ' · the outreach provider has no country, so the country is not applied' : ''}
              </>
            }
          >
            <>
              <Chart
                title="Messages per campaign"
                data={r.campaigns}
                category="name"
                categoryLabel="Campaign"
                series={[
                  { key: 'sent', label: 'Sent' },
                  { key: 'delivered', label: 'Delivered' },
                  { key: 'opened', label: 'Opened' },
                  { key: 'replied', label: 'Replied' },
                  { key: 'bounced', label: 'Bounced' },
                ]}
                height={260}
              />
              <Chart
                title="Open and reply rates per campaign"
                data={r.campaigns}
                category="name"
                categoryLabel="Campaign"
                series={[
                  { key: 'open_rate', label: 'Open rate', format: formatPercent },
                  { key: 'reply_rate', label: 'Reply rate', format: formatPercent },
                ]}
              />
            </>
          </SourcedFigures>
        );
      }}
    </ReportFrame>
  );
}

export function WebReport({ q }: { q: ReportQuery }) {
  const { query, refresh } = useReport('web', q, (refresh) =>
    unwrap(api.GET('/api/v1/dashboard/admin/web-analytics', { params: { query: { ...q, refresh } } })),
  );
  return (
    <ReportFrame view="web" q={q} title="Web analytics" query={query} refresh={refresh}>
      {() => {
        const r = query.data!;
        return (
          <SourcedFigures
            view="web"
            status={r.source_status}
            scope={
              <>
                {windowText(r.window)}
                {r.country ? ` · ${r.country}` : ' · every country'}
              </>
            }
          >
            <>
              <Figures
                label="Web traffic"
                items={[
                  ['Visitors', formatNumber(r.visitors)],
                  ['Sessions', formatNumber(r.sessions)],
                  ['Page views', formatNumber(r.page_views)],
                  ['Bounce rate', formatPercent(r.bounce_rate)],
                  ['Average session', `${formatNumber(Math.round(r.avg_session_seconds))} s`],
                ]}
              />
              <div className="grid gap-4 lg:grid-cols-2">
                <Chart
                  title="Top pages"
                  data={r.top_pages}
                  category="path"
                  categoryLabel="Page"
                  series={[{ key: 'page_views', label: 'Page views' }]}
                />
                <Chart
                  title="Top sources"
                  data={r.top_sources}
                  category="source"
                  categoryLabel="Source"
                  series={[{ key: 'sessions', label: 'Sessions' }]}
                />
              </div>
            </>
          </SourcedFigures>
        );
      }}
    </ReportFrame>
  );
}

export function MobileReport({ q }: { q: ReportQuery }) {
  const query_ = viewQuery('mobile', q);
  const { query, refresh } = useReport('mobile', q, (refresh) =>
    unwrap(api.GET('/api/v1/dashboard/admin/mobile-subscriptions', { params: { query: { ...query_, refresh } } })),
  );
  return (
    <ReportFrame view="mobile" q={q} title="Mobile subscriptions" query={query} refresh={refresh}>
      {() => {
        const r = query.data!;
        const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: r.revenue.currency });
        return (
          <SourcedFigures
            view="mobile"
            status={r.source_status}
            scope={
              <>
                {windowText(r.window)}
                {q.country ? ' · the app store figures have no country, so the country is not applied' : ''}
              </>
            }
          >
            <Figures
              label="Mobile subscriptions"
              items={[
                ['Installs', formatNumber(r.installs)],
                ['Trials started', formatNumber(r.trials_started)],
                ['New subscriptions', formatNumber(r.new_subscriptions)],
                ['Active subscriptions', formatNumber(r.active_subscriptions)],
                ['Churned subscriptions', formatNumber(r.churned_subscriptions)],
                ['Revenue', money.format(r.revenue.amount)],
              ]}
            />
          </SourcedFigures>
        );
      }}
    </ReportFrame>
  );
}

export function SocialReport({ q }: { q: ReportQuery }) {
  const { query, refresh } = useReport('social', q, (refresh) =>
    unwrap(api.GET('/api/v1/dashboard/admin/social', { params: { query: { refresh } } })),
  );
  return (
    <ReportFrame view="social" q={q} title="Social accounts" query={query} refresh={refresh}>
      {() => {
        const r = query.data!;
        // An account that could not be read has no figures: listed with its reason, not drawn as a zero.
        const read = r.accounts
          .filter((a) => a.followers !== null)
          .map((a) => ({ ...a, account: `${a.network} ${a.handle}` }));
        const failed = r.accounts.filter((a) => a.followers === null);
        return (
          <SourcedFigures
            view="social"
            status={r.source_status}
            scope={<>Current figures (no window{q.country ? ' and no country' : ''}).</>}
          >
            <>
              <Chart
                title="Followers per account"
                data={read}
                category="account"
                categoryLabel="Account"
                series={[{ key: 'followers', label: 'Followers' }]}
              />
              {failed.length > 0 && (
                <ul className="text-sm" aria-label="Accounts not read">
                  {failed.map((a) => (
                    <li key={`${a.network}${a.handle}`}>
                      {a.network} {a.handle}: {a.error ?? 'not read'}
                    </li>
                  ))}
                </ul>
              )}
            </>
          </SourcedFigures>
        );
      }}
    </ReportFrame>
  );
}

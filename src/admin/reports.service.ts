import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import { computeKpis, scopeKey } from './kpis.service';
import { createReportCache } from './report-cache';
import type { AnalyticsSources } from './analytics-sources';
import type { KpiScope } from './kpi-figures';
import type { KpiWindow } from './kpi-window';

/** Cache lifetimes the interface gives: about 60 s, 5 minutes for web analytics and social. */
export const CACHE_SECONDS = {
  kpis: 60,
  product_analytics: 60,
  campaigns: 60,
  mobile_subscriptions: 60,
  web_analytics: 300,
  social: 300,
} as const;

export type SourceStatus = 'ok' | 'not_configured' | 'unavailable';

interface Request {
  scope: KpiScope;
  refresh: boolean;
}

/** The window a report covers, first in its answer; a windowless source's report has none. */
type WindowPart<Windowless extends boolean> = Windowless extends true ? object : { window: KpiWindow };

const keepUnlessUnavailable = (v: { source_status: SourceStatus }) => v.source_status !== 'unavailable';

/**
 * The admin reports: KPIs from the service's own collections, and the external analytics sources,
 * each cached in Redis for the interface's lifetime. A source answers its figures with
 * `source_status: ok`; one that is not configured or fails answers zeros with `not_configured` or
 * `unavailable` (so one failing source never fails a report). The sources are the service's own
 * accounts: they serve the platform view; a view of one client reports `not_configured` until
 * per-client analytics integrations exist.
 */
export function createAdminReports(deps: { redis: Redis; logger: Logger; sources: AnalyticsSources }) {
  const cache = createReportCache(deps.redis, deps.logger);
  const log = deps.logger.child({ component: 'admin-reports' });

  async function fromSource<S, T>(
    name: string,
    scope: KpiScope,
    get: () => Promise<S | null>,
    run: (source: S) => Promise<T>,
  ) {
    const source = scope.clientId ? null : await get();
    if (!source) return { source_status: 'not_configured' as SourceStatus, figures: null };
    try {
      return { source_status: 'ok' as SourceStatus, figures: await run(source) };
    } catch (err) {
      log.warn({ source: name, reason: (err as Error).message }, 'analytics source unavailable');
      return { source_status: 'unavailable' as SourceStatus, figures: null };
    }
  }

  async function cached<T extends object>(
    report: keyof typeof CACHE_SECONDS,
    r: Request,
    compute: () => Promise<T>,
    keep?: (v: T) => boolean,
  ) {
    const key = scopeKey(report, r.scope);
    const { value, cached: hit } = await cache.get(
      key,
      CACHE_SECONDS[report],
      async () => {
        log.debug({ report, key }, 'report computed');
        return compute();
      },
      { refresh: r.refresh, keep },
    );
    return { ...value, cached: hit };
  }

  /**
   * The cached report of one external source: `fetch` asks the source for the scope's figures and `answer` shapes
   * them (null when the source gave none) after the window (unless `windowless`), the time and the source's
   * status. An answer of an unavailable source is not kept.
   */
  function sourceReport<S, F, T extends object, Windowless extends boolean = false>(
    report: keyof typeof CACHE_SECONDS,
    name: string,
    get: () => Promise<S | null>,
    how: {
      fetch: (source: S, scope: KpiScope) => Promise<F>;
      answer: (figures: F | null, scope: KpiScope) => T;
      windowless?: Windowless;
    },
  ) {
    const windowPart = (scope: KpiScope) => (how.windowless ? {} : { window: scope.window }) as WindowPart<Windowless>;
    return (r: Request) =>
      cached(
        report,
        r,
        async () => {
          const s = await fromSource(name, r.scope, get, (src) => how.fetch(src, r.scope));
          return {
            ...windowPart(r.scope),
            generated_at: new Date().toISOString(),
            source_status: s.source_status,
            ...how.answer(s.figures, r.scope),
          };
        },
        keepUnlessUnavailable,
      );
  }

  const webAnalyticsZero = {
    visitors: 0,
    sessions: 0,
    page_views: 0,
    bounce_rate: 0,
    avg_session_seconds: 0,
    top_pages: [],
    top_sources: [],
  };
  const mobileSubscriptionsZero = {
    installs: 0,
    trials_started: 0,
    new_subscriptions: 0,
    active_subscriptions: 0,
    churned_subscriptions: 0,
    revenue: { amount: 0, currency: 'USD' },
  };

  return {
    kpis: (r: Request) => cached('kpis', r, () => computeKpis(r.scope)),

    productAnalytics: sourceReport('product_analytics', 'product-analytics', deps.sources.productAnalytics, {
      fetch: (src, scope) => src.fetch(scope.window, scope.country),
      answer: (figures, scope) => ({
        country: scope.country,
        total_events: figures?.total_events ?? 0,
        categories: figures?.categories ?? [],
      }),
    }),

    webAnalytics: sourceReport('web_analytics', 'web-analytics', deps.sources.webAnalytics, {
      fetch: (src, scope) => src.fetch(scope.window, scope.country),
      answer: (figures, scope) => ({ country: scope.country, ...(figures ?? webAnalyticsZero) }),
    }),

    mobileSubscriptions: sourceReport(
      'mobile_subscriptions',
      'mobile-subscriptions',
      deps.sources.mobileSubscriptions,
      {
        fetch: (src, scope) => src.fetch(scope.window),
        answer: (figures) => figures ?? mobileSubscriptionsZero,
      },
    ),

    campaigns: sourceReport('campaigns', 'campaigns', deps.sources.campaigns, {
      fetch: (src, scope) => src.fetch(scope.window),
      // The source has no country dimension: a country is accepted but not applied (country: null says so).
      answer: (figures) => ({ country: null, campaigns: figures ?? [] }),
    }),

    social: sourceReport('social', 'social', deps.sources.social, {
      fetch: (src) => src.fetch(),
      answer: (figures) => ({ accounts: figures ?? [] }),
      windowless: true,
    }),
  };
}

export type AdminReports = ReturnType<typeof createAdminReports>;

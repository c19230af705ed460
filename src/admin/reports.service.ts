import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import type { KpiWindow } from './kpi-window';
import { computeKpis, scopeKey } from './kpis.service';
import { createReportCache } from './report-cache';
import type { AnalyticsSources } from './analytics-sources';
import type { KpiScope } from './kpi-figures';

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

  const header = (w: KpiWindow) => ({ window: w, generated_at: new Date().toISOString() });

  return {
    kpis: (r: Request) => cached('kpis', r, () => computeKpis(r.scope)),

    productAnalytics: (r: Request) =>
      cached(
        'product_analytics',
        r,
        async () => {
          const s = await fromSource('product-analytics', r.scope, deps.sources.productAnalytics, (src) =>
            src.fetch(r.scope.window, r.scope.country),
          );
          return {
            ...header(r.scope.window),
            source_status: s.source_status,
            country: r.scope.country,
            total_events: s.figures?.total_events ?? 0,
            categories: s.figures?.categories ?? [],
          };
        },
        keepUnlessUnavailable,
      ),

    webAnalytics: (r: Request) =>
      cached(
        'web_analytics',
        r,
        async () => {
          const s = await fromSource('web-analytics', r.scope, deps.sources.webAnalytics, (src) =>
            src.fetch(r.scope.window, r.scope.country),
          );
          const zero = {
            visitors: 0,
            sessions: 0,
            page_views: 0,
            bounce_rate: 0,
            avg_session_seconds: 0,
            top_pages: [],
            top_sources: [],
          };
          return {
            ...header(r.scope.window),
            source_status: s.source_status,
            country: r.scope.country,
            ...(s.figures ?? zero),
          };
        },
        keepUnlessUnavailable,
      ),

    mobileSubscriptions: (r: Request) =>
      cached(
        'mobile_subscriptions',
        r,
        async () => {
          const s = await fromSource('mobile-subscriptions', r.scope, deps.sources.mobileSubscriptions, (src) =>
            src.fetch(r.scope.window),
          );
          const zero = {
            installs: 0,
            trials_started: 0,
            new_subscriptions: 0,
            active_subscriptions: 0,
            churned_subscriptions: 0,
            revenue: { amount: 0, currency: 'USD' },
          };
          return { ...header(r.scope.window), source_status: s.source_status, ...(s.figures ?? zero) };
        },
        keepUnlessUnavailable,
      ),

    campaigns: (r: Request) =>
      cached(
        'campaigns',
        r,
        async () => {
          const s = await fromSource('campaigns', r.scope, deps.sources.campaigns, (src) => src.fetch(r.scope.window));
          // The campaign source has no country dimension: a country is accepted but not applied
          // (country: null says so).
          return {
            ...header(r.scope.window),
            source_status: s.source_status,
            country: null,
            campaigns: s.figures ?? [],
          };
        },
        keepUnlessUnavailable,
      ),

    social: (r: Request) =>
      cached(
        'social',
        r,
        async () => {
          const s = await fromSource('social', r.scope, deps.sources.social, (src) => src.fetch());
          return { generated_at: new Date().toISOString(), source_status: s.source_status, accounts: s.figures ?? [] };
        },
        keepUnlessUnavailable,
      ),
  };
}

export type AdminReports = ReturnType<typeof createAdminReports>;

import { ProviderError } from '../errors';
import { callJson, num, type SourceEndpoint } from './source';

const PROVIDER = 'web-analytics';
const TOP = 10;

/** A report of the analytics Data API (GA4 `properties/{id}:batchRunReports`). */
interface Report {
  rows?: { dimensionValues?: { value: string }[]; metricValues?: { value: string }[] }[];
}

export interface WebAnalyticsFigures {
  visitors: number;
  sessions: number;
  page_views: number;
  bounce_rate: number;
  avg_session_seconds: number;
  top_pages: { path: string; page_views: number }[];
  top_sources: { source: string; sessions: number }[];
}

/**
 * Website traffic of the window in one batch of three reports (totals, top pages, top sources),
 * optionally filtered to one country. The configured URL is the property (`.../v1beta/properties/<id>`);
 * the key is a bearer token.
 */
export function createWebAnalyticsSource(ep: SourceEndpoint) {
  return {
    async fetch(window: { from: string; to: string }, country: string | null): Promise<WebAnalyticsFigures> {
      const base = {
        dateRanges: [{ startDate: window.from, endDate: window.to }],
        ...(country
          ? {
              dimensionFilter: {
                filter: { fieldName: 'countryId', stringFilter: { matchType: 'EXACT', value: country } },
              },
            }
          : {}),
      };
      const top = (dimension: string, metric: string) => ({
        ...base,
        dimensions: [{ name: dimension }],
        metrics: [{ name: metric }],
        orderBys: [{ metric: { metricName: metric }, desc: true }],
        limit: TOP,
      });
      const answer = await callJson<{ reports?: Report[] }>(
        PROVIDER,
        `${ep.baseUrl.replace(/\/$/, '')}:batchRunReports`,
        {
          method: 'POST',
          timeoutMs: ep.timeoutMs,
          headers: { authorization: `Bearer ${ep.key}` },
          json: {
            requests: [
              {
                ...base,
                metrics: ['totalUsers', 'sessions', 'screenPageViews', 'bounceRate', 'averageSessionDuration'].map(
                  (name) => ({ name }),
                ),
              },
              top('pagePath', 'screenPageViews'),
              top('sessionSource', 'sessions'),
            ],
          },
        },
      );
      const [totals, pages, sources] = answer.reports ?? [];
      if (!totals || !pages || !sources)
        throw new ProviderError(PROVIDER, 'malformed', 'batch answer without its three reports');
      // No rows: no traffic in the window.
      const t = (totals.rows?.[0]?.metricValues ?? []).map((m, i) => num(PROVIDER, m.value, `metric ${i}`));
      const [visitors = 0, sessions = 0, page_views = 0, bounce_rate = 0, avg_session_seconds = 0] = t;
      const rowsOf = (r: Report) =>
        (r.rows ?? []).map(
          (row) =>
            [
              row.dimensionValues?.[0]?.value ?? '',
              num(PROVIDER, row.metricValues?.[0]?.value, 'a row metric'),
            ] as const,
        );
      return {
        visitors: Math.round(visitors),
        sessions: Math.round(sessions),
        page_views: Math.round(page_views),
        bounce_rate: Math.min(1, bounce_rate),
        avg_session_seconds,
        top_pages: rowsOf(pages).map(([path, views]) => ({ path, page_views: Math.round(views) })),
        top_sources: rowsOf(sources).map(([source, n]) => ({ source, sessions: Math.round(n) })),
      };
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import {
  CAMPAIGNS,
  EVENT_CATEGORIES,
  campaignDay,
  daysBetween,
  mobileChart,
  productEvents,
  socialFollowers,
  webTraffic,
} from './analytics-data';

/**
 * The sandbox's analytics providers, each in its provider's wire format, under a neutral prefix:
 *
 *   GET  /product-analytics/api/2/events/segmentation        event segmentation (Basic auth)
 *   POST /web-analytics/v1beta/properties/<id>:batchRunReports  Data API batch of reports (Bearer)
 *   GET  /mobile-subscriptions/v2/projects/<id>/charts/<chart> daily chart data (Bearer)
 *   POST /social/api/analytics/social                        follower analytics per platform (Bearer)
 *   GET  /campaigns/api/v2/campaigns/analytics                per-campaign analytics (Bearer)
 *
 * Keys drive misbehaviour: a key containing `sbx-invalid` is refused (401), `sbx-down` answers 503,
 * `sbx-slow-<ms>` answers late, `sbx-partial` makes one social network fail. `requests` counts
 * the calls per source (`analytics` in GET /_sandbox/stats).
 */
export type AnalyticsAnswer = { status: number; type: string; body: string };
const json = (status: number, body: unknown): AnalyticsAnswer => ({
  status,
  type: 'application/json',
  body: JSON.stringify(body),
});

type Handler = (q: URLSearchParams, body: unknown, match: RegExpExecArray) => AnalyticsAnswer;

const dateOf = (compact: string | null) =>
  compact && /^\d{8}$/.test(compact) ? `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6)}` : null;

function segmentation(q: URLSearchParams): AnalyticsAnswer {
  const from = dateOf(q.get('start'));
  const to = dateOf(q.get('end'));
  if (!from || !to || !q.get('e')) return json(400, { error: 'e, start and end are required' });
  const segment = q.get('s') ? (JSON.parse(q.get('s')!) as { values: string[] }[]) : [];
  const country = segment[0]?.values?.[0] ?? null;
  const totals = Object.fromEntries(EVENT_CATEGORIES.map((c) => [c, 0]));
  const days = daysBetween(from, to);
  for (const d of days) for (const [c, n] of Object.entries(productEvents(d, country))) totals[c] += n;
  return json(200, {
    data: {
      xValues: days,
      seriesLabels: EVENT_CATEGORIES.map((c) => [0, c]),
      series: EVENT_CATEGORIES.map((c) => days.map((d) => productEvents(d, country)[c])),
      seriesCollapsed: EVENT_CATEGORIES.map((c) => [{ setId: '', value: totals[c] }]),
    },
  });
}

/** What the sandbox reads of a GA4 Data API report request (the rest of it is ignored). */
interface RunReportRequest {
  dateRanges?: { startDate?: string; endDate?: string }[];
  dimensionFilter?: { filter?: { stringFilter?: { value?: string } } };
  dimensions?: { name: string }[];
  metrics?: { name: string }[];
}

function batchRunReports(_q: URLSearchParams, body: unknown): AnalyticsAnswer {
  const requests = (body as { requests?: RunReportRequest[] } | undefined)?.requests;
  if (!Array.isArray(requests))
    return json(400, { error: { code: 400, message: 'requests is required', status: 'INVALID_ARGUMENT' } });
  const reports = requests.map((r) => {
    const range = r.dateRanges?.[0];
    const country = r.dimensionFilter?.filter?.stringFilter?.value ?? null;
    const days = daysBetween(range?.startDate ?? '', range?.endDate ?? '').map((d) => webTraffic(d, country));
    const sum = (f: (t: ReturnType<typeof webTraffic>) => number) => days.reduce((n, t) => n + f(t), 0);
    const dimension = r.dimensions?.[0]?.name;
    let rows: [string | null, number[]][];
    if (!dimension) {
      const sessions = sum((t) => t.sessions);
      rows = days.length ? [[null, [sum((t) => t.visitors), sessions, sum((t) => t.page_views), 0.42, 95.5]]] : [];
    } else {
      const field = dimension === 'pagePath' ? 'pages' : 'sources';
      const keys = Object.keys(days[0]?.[field] ?? {});
      rows = keys
        .map((k) => [k, [sum((t) => (t[field] as Record<string, number>)[k])]] as [string, number[]])
        .sort((a, b) => b[1][0] - a[1][0]);
    }
    return {
      dimensionHeaders: dimension ? [{ name: dimension }] : [],
      metricHeaders: (r.metrics ?? []).map((m) => ({ name: m.name, type: 'TYPE_INTEGER' })),
      rows: rows.map(([d, metrics]) => ({
        ...(d === null ? {} : { dimensionValues: [{ value: d }] }),
        metricValues: metrics.map((v) => ({ value: String(v) })),
      })),
      rowCount: rows.length,
      kind: 'analyticsData#runReport',
    };
  });
  return json(200, { reports, kind: 'analyticsData#batchRunReports' });
}

function chart(q: URLSearchParams, _body: unknown, m: RegExpExecArray): AnalyticsAnswer {
  const name = m[1];
  const from = q.get('start_date');
  const to = q.get('end_date');
  if (!from || !to) return json(400, { type: 'parameter_error', message: 'start_date and end_date are required' });
  return json(200, {
    object: 'chart_data',
    category: 'subscriptions',
    display_name: name,
    resolution: 'day',
    start_date: Date.parse(from),
    end_date: Date.parse(to),
    yaxis_currency: 'USD',
    values: daysBetween(from, to).map((d) => ({
      cohort: Date.parse(d) / 1000,
      incomplete: false,
      measure: 0,
      value: mobileChart(name, d),
    })),
  });
}

function social(_q: URLSearchParams, body: unknown, _m: RegExpExecArray, key = ''): AnalyticsAnswer {
  const asked = (body as { platforms?: unknown } | undefined)?.platforms;
  const platforms: string[] = Array.isArray(asked) ? asked : [];
  const answer: Record<string, unknown> = { status: 'success' };
  platforms.forEach((p, i) => {
    answer[p] =
      key.includes('sbx-partial') && i === platforms.length - 1
        ? { status: 'error', code: 429, message: 'Rate limited by the network; try later' }
        : { analytics: { ...socialFollowers(p), username: `leadservice_${p}` } };
  });
  return json(200, answer);
}

function campaigns(q: URLSearchParams): AnalyticsAnswer {
  const days = daysBetween(q.get('start_date') ?? '', q.get('end_date') ?? '');
  return json(
    200,
    CAMPAIGNS.map((c) => {
      const t = { sent: 0, bounced: 0, opened: 0, replied: 0 };
      for (const d of days) for (const [k, v] of Object.entries(campaignDay(c.id, d))) t[k as keyof typeof t] += v;
      return {
        campaign_id: c.id,
        campaign_name: c.name,
        campaign_status: c.status,
        campaign_is_evergreen: false,
        leads_count: t.sent,
        contacted_count: t.sent,
        emails_sent_count: t.sent,
        open_count: t.opened,
        reply_count: t.replied,
        bounced_count: t.bounced,
        link_click_count: 0,
        unsubscribed_count: 0,
      };
    }),
  );
}

const ROUTES: [
  string,
  'GET' | 'POST',
  RegExp,
  (q: URLSearchParams, body: unknown, m: RegExpExecArray, key: string) => AnalyticsAnswer,
][] = [
  ['product-analytics', 'GET', /^\/product-analytics\/api\/2\/events\/segmentation$/, segmentation as Handler],
  ['web-analytics', 'POST', /^\/web-analytics\/v1beta\/properties\/[\w-]+:batchRunReports$/, batchRunReports],
  ['mobile-subscriptions', 'GET', /^\/mobile-subscriptions\/v2\/projects\/[\w-]+\/charts\/([a-z_]+)$/, chart],
  ['social', 'POST', /^\/social\/api\/analytics\/social$/, social],
  ['campaigns', 'GET', /^\/campaigns\/api\/v2\/campaigns\/analytics$/, campaigns as Handler],
];

/** The analytics answer for a request, or null when the path is none of theirs. */
export async function analyticsAnswer(
  req: {
    method: string;
    path: string;
    query: URLSearchParams;
    authorization: string;
    readBody: () => Promise<unknown>;
  },
  requests: Record<string, number>,
): Promise<AnalyticsAnswer | null> {
  const { method, path, query: q, authorization, readBody } = req;
  for (const [source, verb, pattern, handle] of ROUTES) {
    const m = pattern.exec(path);
    if (!m) continue;
    if (method !== verb) return json(405, { error: 'method not allowed' });
    requests[source] = (requests[source] ?? 0) + 1;
    const key = authorization.startsWith('Basic ')
      ? Buffer.from(authorization.slice(6), 'base64').toString('utf8')
      : authorization.replace(/^Bearer /, '');
    if (!key || key.includes('sbx-invalid')) return json(401, { error: 'invalid api key' });
    const slow = /sbx-slow-(\d{1,5})/.exec(key);
    if (slow) await sleep(Number(slow[1]));
    if (key.includes('sbx-down')) return json(503, { error: 'service unavailable' });
    try {
      return handle(q, method === 'POST' ? await readBody() : undefined, m, key);
    } catch {
      return json(400, { error: 'malformed request' });
    }
  }
  return null;
}

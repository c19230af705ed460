import { Writable } from 'node:stream';
// What the sandbox's analytics providers answer: the figures every report is checked against.
import * as sandboxData from '../../src/sandbox/analytics-data';
import { createClient, useTestApi, type TestApi } from '../support/harness';

const DAY = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
const report = (api: TestApi, token: string, name: string, query = '', headers: Record<string, string> = {}) =>
  api.call('GET', `/api/v1/dashboard/admin/${name}${query}`, { token, headers });
const sandboxCalls = async (api: TestApi, source: string) =>
  (await api.rt.modules.admin.sources.sandbox())?.analytics[source] ?? 0;

describe('admin analytics reports, every source answering', () => {
  const lines: string[] = [];
  const capture = new Writable({
    write: (chunk, _enc, done) => void (lines.push(...String(chunk).split('\n').filter(Boolean)), done()),
  });
  const ctx = useTestApi({ LOG_LEVEL: 'debug' }, { logDestination: capture });
  const from = day(-9);
  const to = day(0);
  const days = sandboxData.daysBetween(from, to);

  it('reads product-analytics events by category from the provider, for a window and a country', async () => {
    const res = await report(ctx.api, ctx.admin, 'product-analytics-metrics', `?from=${from}&to=${to}&country=NL`);
    expect(res.status).toBe(200);
    const expected = sandboxData.EVENT_CATEGORIES.map((c) => ({
      category: c,
      count: days.reduce((n, d) => n + sandboxData.productEvents(d, 'NL')[c], 0),
    }));
    expect(res.body).toMatchObject({
      source_status: 'ok',
      country: 'NL',
      window: { from, to, period: null },
      cached: false,
    });
    expect([...res.body.categories].sort((a, b) => a.category.localeCompare(b.category))).toEqual(
      expected.sort((a, b) => a.category.localeCompare(b.category)),
    );
    expect(res.body.total_events).toBe(expected.reduce((n, c) => n + c.count, 0));
  });

  it('reads web traffic, top pages and sources', async () => {
    const res = await report(ctx.api, ctx.admin, 'web-analytics', `?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    const t = days.map((d) => sandboxData.webTraffic(d, null));
    const sessions = t.reduce((n, x) => n + x.sessions, 0);
    expect(res.body).toMatchObject({
      source_status: 'ok',
      sessions,
      visitors: t.reduce((n, x) => n + x.visitors, 0),
      page_views: t.reduce((n, x) => n + x.page_views, 0),
      bounce_rate: 0.42,
      avg_session_seconds: 95.5,
    });
    expect(res.body.top_pages[0]).toEqual({ path: '/', page_views: sessions });
    expect(res.body.top_sources).toEqual([
      { source: 'google', sessions: t.reduce((n, x) => n + x.sources.google, 0) },
      { source: 'direct', sessions: t.reduce((n, x) => n + x.sources.direct, 0) },
    ]);
  });

  it('reads installs, subscriptions and revenue from the daily charts', async () => {
    const res = await report(ctx.api, ctx.admin, 'mobile-subscriptions', `?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    const sum = (chart: string) => days.reduce((n, d) => n + sandboxData.mobileChart(chart, d), 0);
    expect(res.body).toMatchObject({
      source_status: 'ok',
      installs: sum('customers_new'),
      trials_started: sum('trials_new'),
      new_subscriptions: sum('actives_new'),
      active_subscriptions: sandboxData.mobileChart('actives', to),
      churned_subscriptions: sum('churned_actives'),
      revenue: { amount: Math.round(sum('revenue') * 100) / 100, currency: 'USD' },
    });
  });

  it('reads per-campaign performance with rates of delivered messages', async () => {
    const res = await report(ctx.api, ctx.admin, 'campaigns', `?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    expect(res.body.source_status).toBe('ok');
    const first = sandboxData.CAMPAIGNS[0];
    const t = days
      .map((d) => sandboxData.campaignDay(first.id, d))
      .reduce((a, b) => ({
        sent: a.sent + b.sent,
        bounced: a.bounced + b.bounced,
        opened: a.opened + b.opened,
        replied: a.replied + b.replied,
      }));
    const got = res.body.campaigns.find((c: { campaign_id: string }) => c.campaign_id === first.id);
    expect(got).toMatchObject({
      name: first.name,
      status: 'running',
      sent: t.sent,
      bounced: t.bounced,
      delivered: t.sent - t.bounced,
      opened: t.opened,
      replied: t.replied,
    });
    expect(got.open_rate).toBeCloseTo(t.opened / (t.sent - t.bounced), 3);
    expect(res.body.campaigns).toHaveLength(sandboxData.CAMPAIGNS.length);
  });

  it('reads followers of every configured social account', async () => {
    const res = await report(ctx.api, ctx.admin, 'social');
    expect(res.status).toBe(200);
    expect(res.body.source_status).toBe('ok');
    expect(res.body.accounts).toEqual(
      ['instagram', 'twitter', 'linkedin'].map((network) => ({
        network,
        handle: network === 'linkedin' ? 'lead-service' : '@leadservice',
        followers: sandboxData.socialFollowers(network).followersCount,
        engagement_rate: sandboxData.socialFollowers(network).engagementRate ?? null,
        error: null,
      })),
    );
  });

  it('serves a cached answer without calling the provider, and refresh=true calls it again', async () => {
    const q = `?from=${day(-20)}&to=${day(-15)}`;
    const before = await sandboxCalls(ctx.api, 'web-analytics');
    const miss = await report(ctx.api, ctx.admin, 'web-analytics', q);
    const hit = await report(ctx.api, ctx.admin, 'web-analytics', q);
    expect([miss.body.cached, hit.body.cached]).toEqual([false, true]);
    expect(hit.body.sessions).toBe(miss.body.sessions);
    expect(await sandboxCalls(ctx.api, 'web-analytics')).toBe(before + 1);
    const refreshed = await report(ctx.api, ctx.admin, 'web-analytics', `${q}&refresh=true`);
    expect(refreshed.body.cached).toBe(false);
    expect(await sandboxCalls(ctx.api, 'web-analytics')).toBe(before + 2);
  });

  it('computes a cold report once for a stampede of 20 concurrent requests', async () => {
    const q = `?from=${day(-30)}&to=${day(-25)}&country=DE`;
    const before = await sandboxCalls(ctx.api, 'product-analytics');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => report(ctx.api, ctx.admin, 'product-analytics-metrics', q)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.total_events)).size).toBe(1);
    expect(await sandboxCalls(ctx.api, 'product-analytics')).toBe(before + 1);

    const kq = `?from=${day(-30)}&to=${day(-26)}`;
    const computed = () =>
      lines.filter((l) => l.includes('report computed') && l.includes(`kpis:all:${day(-30)}..${day(-26)}`)).length;
    const kpis = await Promise.all(Array.from({ length: 20 }, () => report(ctx.api, ctx.admin, 'kpis', kq)));
    expect(kpis.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(computed()).toBe(1);
  });

  it("gives a view of one client not_configured, since the sources are the service's own accounts", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Analytics A');
    const res = await report(ctx.api, ctx.admin, 'product-analytics-metrics', '', {
      'X-Selected-Client-Id': client.client_id,
    });
    expect(res.body).toMatchObject({ source_status: 'not_configured', total_events: 0, categories: [] });
  });
});

describe('admin analytics reports, one source failing and one unconfigured', () => {
  const ctx = useTestApi({
    WEB_ANALYTICS_KEY: 'sbx-down',
    MOBILE_SUBSCRIPTIONS_URL: 'none',
    // A timeout wide enough for a loaded machine's healthy sources, far short of the slow one's answer.
    CAMPAIGNS_KEY: 'sbx-slow-8000',
    ANALYTICS_TIMEOUT_MS: '3000',
    SOCIAL_ANALYTICS_KEY: 'sbx-partial',
  });

  it('answers zeros with the source status, never an error, and keeps the other sources working', async () => {
    const web = await report(ctx.api, ctx.admin, 'web-analytics');
    expect(web.status).toBe(200);
    expect(web.body).toMatchObject({
      source_status: 'unavailable',
      sessions: 0,
      visitors: 0,
      top_pages: [],
      top_sources: [],
    });
    const mobile = await report(ctx.api, ctx.admin, 'mobile-subscriptions');
    expect(mobile.body).toMatchObject({
      source_status: 'not_configured',
      installs: 0,
      revenue: { amount: 0, currency: 'USD' },
    });
    // The slow source would answer, late, with campaigns: `unavailable` is the timeout's doing.
    const campaigns = await report(ctx.api, ctx.admin, 'campaigns');
    expect(campaigns.body).toMatchObject({ source_status: 'unavailable', campaigns: [] });
    const product = await report(ctx.api, ctx.admin, 'product-analytics-metrics');
    expect(product.body.source_status).toBe('ok');
  });

  it('does not cache a failed source, so the next request asks again', async () => {
    const before = await sandboxCalls(ctx.api, 'web-analytics');
    const again = await report(ctx.api, ctx.admin, 'web-analytics');
    expect(again.body).toMatchObject({ source_status: 'unavailable', cached: false });
    expect(await sandboxCalls(ctx.api, 'web-analytics')).toBe(before + 1);
  });

  it('lists a social account that cannot be read with its error', async () => {
    const res = await report(ctx.api, ctx.admin, 'social');
    expect(res.body.source_status).toBe('ok');
    expect(res.body.accounts.at(-1)).toEqual({
      network: 'linkedin',
      handle: 'lead-service',
      followers: null,
      engagement_rate: null,
      error: 'Rate limited by the network; try later',
    });
    expect(res.body.accounts[0].followers).toBe(sandboxData.socialFollowers('instagram').followersCount);
  });
});

import { randomUUID } from 'node:crypto';
import { JobModel } from '../../src/jobs/job.model';
import { PostModel } from '../../src/content/post.model';
import { PageModel } from '../../src/content/page.model';
import { AccessTokenModel } from '../../src/agents/access-token.model';
import { ClientModel } from '../../src/clients/client.model';
import { createClient, useTestApi, type TestApi } from '../support/harness';
import { userOf } from '../brands/brand-helpers';
import { PinModel } from '../../src/pins/pin.model';
import { recordRelayCalls } from '../../src/integrations/active-credential';

const DAY = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
const at = (offset: number) => new Date(`${day(offset)}T12:00:00Z`);

async function job(
  clientId: string,
  type: 'maps-scrape' | 'research',
  status: string,
  created: Date,
  results: number,
  country = 'NL',
) {
  const params =
    type === 'maps-scrape'
      ? { query: 'bakery', country_code: country }
      : { companies: [{ name: 'Acme', country_code: country }] };
  await JobModel.collection.insertOne({
    _id: randomUUID() as never,
    client_id: clientId,
    type,
    status,
    params,
    progress: { done: 0, total: 0 },
    results_count: results,
    created_at: created,
    updated_at: created,
  });
}

async function published(
  model: typeof PostModel | typeof PageModel,
  clientId: string,
  when: Date | null,
  status = 'published',
) {
  await model.collection.insertOne({
    _id: randomUUID() as never,
    client_id: clientId,
    slug: randomUUID(),
    status,
    published_at: when,
    created_at: when ?? new Date(),
  });
}

async function token(clientId: string, created: Date, opts: { revoked?: boolean; expired?: boolean } = {}) {
  await AccessTokenModel.collection.insertOne({
    _id: randomUUID() as never,
    client_id: clientId,
    token_hash: randomUUID(),
    token_prefix: 'lpat_x',
    created_at: created,
    expires_at: new Date(Date.now() + (opts.expired ? -1 : 1) * DAY),
    revoked_at: opts.revoked ? new Date() : null,
  });
}

async function pin(clientId: string, name: string, created: Date, country = 'NL') {
  await PinModel.collection.insertOne({
    _id: `${country}:${name}-${randomUUID().slice(0, 8)}`.toUpperCase() as never,
    country_code: country,
    name,
    client_id: clientId,
    brand_id: null,
    reservation_id: randomUUID(),
    gps: { lat: 52, lng: 5 },
    structured_address: {},
    business: {},
    subscription: { status: 'active', expires_at: new Date(Date.now() + 365 * DAY) },
    created_at: created,
    updated_at: created,
  });
}

const relayCall = (clientId: string, amount: number, when: Date) =>
  recordRelayCalls([
    {
      client_id: clientId,
      brand_id: 1,
      acting_brand_id: 1,
      integration_id: 1,
      provider_name: 'maps',
      amount,
      provider_status: 200,
      at: when,
    },
  ]);

const kpis = (api: TestApi, token: string, query = '', headers: Record<string, string> = {}) =>
  api.call('GET', `/api/v1/dashboard/admin/kpis${query}`, { token, headers });

describe('admin KPIs', () => {
  const ctx = useTestApi();
  let a: { client_id: string; triple: string };
  let b: { client_id: string };

  beforeAll(async () => {
    a = await createClient(ctx.api, ctx.admin, 'Kpi A');
    b = await createClient(ctx.api, ctx.admin, 'Kpi B');
    await ClientModel.updateOne({ _id: b.client_id }, { is_active: false });
    // Client A: maps jobs today (2 completed with 10 + 5 businesses, 1 failed), one 3 days ago in DE, one 40 days ago.
    await job(a.client_id, 'maps-scrape', 'completed', at(0), 10);
    await job(a.client_id, 'maps-scrape', 'completed', at(0), 5);
    await job(a.client_id, 'maps-scrape', 'failed', at(0), 0);
    await job(a.client_id, 'maps-scrape', 'completed', at(-3), 7, 'DE');
    await job(a.client_id, 'maps-scrape', 'completed', at(-40), 100);
    await job(a.client_id, 'research', 'running', at(-1), 3);
    await job(a.client_id, 'research', 'completed', at(-2), 4);
    // Client B: one queued job today.
    await job(b.client_id, 'maps-scrape', 'queued', at(0), 0);
    await published(PostModel, a.client_id, at(-1));
    await published(PostModel, a.client_id, at(-50));
    await published(PostModel, a.client_id, null, 'draft');
    await published(PageModel, a.client_id, at(-2));
    await published(PageModel, b.client_id, at(0));
    await token(a.client_id, at(-1));
    await token(a.client_id, at(-2), { revoked: true });
    await token(b.client_id, at(-60), { expired: true });
    // Pins: A two in NL (today, yesterday), one in DE 3 days ago, one 40 days ago; B one today.
    await pin(a.client_id, 'kpi-a1', at(0));
    await pin(a.client_id, 'kpi-a2', at(-1));
    await pin(a.client_id, 'kpi-a3', at(-3), 'DE');
    await pin(a.client_id, 'kpi-a4', at(-40));
    await pin(b.client_id, 'kpi-b1', at(0));
    // Relay calls: A three today at 0.005 and one 40 days ago; B two today at 0.01.
    await Promise.all([
      relayCall(a.client_id, 0.005, at(0)),
      relayCall(a.client_id, 0.005, at(0)),
      relayCall(a.client_id, 0.005, at(0)),
      relayCall(a.client_id, 0.005, at(-40)),
      relayCall(b.client_id, 0.01, at(0)),
      relayCall(b.client_id, 0.01, at(0)),
    ]);
  });

  it('computes every figure of the platform from the stored records', async () => {
    const res = await kpis(ctx.api, ctx.admin, '?period=last_30_days');
    expect(res.status).toBe(200);
    expect(res.body.window).toEqual({ from: day(-29), to: day(0), period: 'last_30_days' });
    expect(res.body.totals).toEqual({
      jobs_submitted: 5,
      jobs_completed: 3,
      jobs_failed: 1,
      jobs_by_status: { queued: 1, processing: 0, completed: 3, failed: 1, cancelled: 0 },
      businesses_found: 22,
      research_jobs_submitted: 2,
      research_jobs_by_status: { queued: 0, running: 1, paused: 0, completed: 1, failed: 0, cancelled: 0 },
      companies_researched: 7,
      clients: 2,
      active_clients: 1,
      posts_published: 1,
      pages_published: 2,
      agents_approved: 2,
      active_agents: 1,
      pins_created: 4,
      relay_calls: 5,
      relay_spend: 0.035,
    });
    expect(res.body.untracked).toEqual([]);
    expect(res.body.daily).toHaveLength(30);
    expect(res.body.daily.at(-1)).toEqual({ date: day(0), jobs_completed: 2, businesses_found: 15 });
    expect(res.body.daily.find((d: { date: string }) => d.date === day(-3))).toEqual({
      date: day(-3),
      jobs_completed: 1,
      businesses_found: 7,
    });
  });

  it('narrows to a window, a country and one client', async () => {
    const window = await kpis(ctx.api, ctx.admin, `?from=${day(-45)}&to=${day(-35)}&refresh=true`);
    expect(window.body.window).toEqual({ from: day(-45), to: day(-35), period: null });
    expect(window.body.totals).toMatchObject({
      jobs_submitted: 1,
      businesses_found: 100,
      posts_published: 0,
      clients: 0,
      pins_created: 1,
      relay_calls: 1,
      relay_spend: 0.005,
    });

    const de = await kpis(ctx.api, ctx.admin, '?country=DE');
    expect(de.body.country).toBe('DE');
    expect(de.body.totals).toMatchObject({
      jobs_submitted: 1,
      businesses_found: 7,
      research_jobs_submitted: 0,
      pins_created: 1,
    });

    const selected = await kpis(ctx.api, ctx.admin, '', { 'X-Selected-Client-Id': b.client_id });
    expect(selected.body.totals).toMatchObject({
      jobs_submitted: 1,
      clients: 1,
      active_clients: 0,
      pages_published: 1,
      agents_approved: 0,
      pins_created: 1,
      relay_calls: 2,
      relay_spend: 0.02,
    });
  });

  it('shows a brand_admin only their own client, and refuses other roles', async () => {
    const brandAdmin = await userOf(ctx.api, ctx.admin, a.client_id, 'kpi-admin@a.test', 'brand_admin');
    const own = await kpis(ctx.api, brandAdmin.token, '', { 'X-Selected-Client-Id': b.client_id });
    expect(own.status).toBe(200);
    expect(own.body.totals).toMatchObject({
      jobs_submitted: 4,
      clients: 1,
      active_clients: 1,
      companies_researched: 7,
    });
    const user = await userOf(ctx.api, ctx.admin, a.client_id, 'kpi-user@a.test', 'client_user');
    expect((await kpis(ctx.api, user.token)).status).toBe(403);
    expect((await kpis(ctx.api, a.triple)).status).toBe(403);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/admin/kpis')).status).toBe(401);
  });

  it('answers 422 for a window that is not one', async () => {
    for (const q of [`?from=${day(0)}&to=${day(-1)}`, '?from=2025-02-30', '?period=fortnight', '?country=nl']) {
      const res = await kpis(ctx.api, ctx.admin, q);
      expect({ q, status: res.status }).toEqual({ q, status: 422 });
      expect(typeof res.body.detail).toBe('string');
    }
  });

  it('caches for about a minute, and refresh=true recomputes', async () => {
    const q = `?from=${day(-10)}&to=${day(0)}`;
    const first = await kpis(ctx.api, ctx.admin, `${q}&refresh=true`);
    expect(first.body.cached).toBe(false);
    const second = await kpis(ctx.api, ctx.admin, q);
    expect(second.body.cached).toBe(true);
    expect(second.body.generated_at).toBe(first.body.generated_at);
    await job(a.client_id, 'maps-scrape', 'completed', at(0), 1);
    expect((await kpis(ctx.api, ctx.admin, q)).body.totals.jobs_submitted).toBe(first.body.totals.jobs_submitted);
    const refreshed = await kpis(ctx.api, ctx.admin, `${q}&refresh=true`);
    expect(refreshed.body.cached).toBe(false);
    expect(refreshed.body.totals.jobs_submitted).toBe(first.body.totals.jobs_submitted + 1);
    expect((await kpis(ctx.api, ctx.admin, q)).body).toMatchObject({
      cached: true,
      totals: { jobs_submitted: first.body.totals.jobs_submitted + 1 },
    });
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { relayUsageTotals } from '../../src/integrations/active-credential';
import { createClient, eventually, useTestApi } from '../support/harness';
import { brandCast } from '../brands/brand-helpers';
import { base, createKey, MESSAGING, received, resetSandbox } from './helpers';
import { deliveriesSettled } from '../support/deliveries';
import { billingSyncId } from '../../src/integrations/integrations.workflows';
import { fakeClock } from '../support/fake-clock';

describe('usage and spend limits', () => {
  // The API's clock stands still unless a test moves it: the minute window's edge comes when the test says.
  const clock = fakeClock();
  const ctx = useTestApi({}, { clock });
  let cast: Awaited<ReturnType<typeof brandCast>>;
  const brands: number[] = [];
  beforeAll(async () => {
    cast = await brandCast(ctx.api, ctx.admin, 'limits');
    // One brand per test, so each has its own keys.
    for (let i = 0; i < 6; i++) {
      const b = await ctx.api.call('POST', '/api/v1/brands', {
        token: cast.parties.owner.token,
        body: { brand_name: `Limits ${i}`, slug: `limits-${i}` },
      });
      brands.push(b.body.brand_id);
    }
  }, 60_000);
  beforeEach(() => resetSandbox(ctx.api));

  const owner = () => cast.parties.owner.token;
  const track = (brandId: number, number = '3SABC') =>
    ctx.api.call('POST', '/api/v1/agent/proxy/parcel-tracking', {
      token: owner(),
      headers: { 'x-brand-id': String(brandId) },
      body: { method: 'GET', path: `/trackings/${number}` },
    });

  it('minute_limit: calls over it answer 429 with Retry-After and are not forwarded', async () => {
    const brandId = brands[0];
    await createKey(ctx.api, owner(), brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'minute-key' },
      minute_limit: 3,
    });
    clock.toNextWindow(60_000);
    clock.advance(15_000);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await track(brandId));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(statuses[3].headers.get('retry-after')).toBe('45');
    expect(statuses[3].body.detail).toBe('Minute limit of this key reached');
    expect(await received(ctx.api, '/parcel-tracking/')).toHaveLength(3);
    clock.toNextWindow(60_000);
    expect((await track(brandId)).status).toBe(200);
  });

  it('daily_limit under 50 concurrent calls: exactly daily_limit pass; reset-usage clears the counters', async () => {
    const brandId = brands[1];
    const key = await createKey(ctx.api, owner(), brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'daily-key' },
      daily_limit: 20,
    });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => track(brandId, `PAR${i}`)));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBe(20);
    expect(results.filter((r) => r.status === 429)).toHaveLength(30);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body.detail).toBe('Daily limit of this key reached');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await received(ctx.api, '/parcel-tracking/')).toHaveLength(20);
    const one = `${base(brandId)}/${key.integration_id}`;
    expect((await ctx.api.call('GET', one, { token: owner() })).body.usage_today).toBe(20);
    const reset = await ctx.api.call('POST', `${one}/reset-usage`, { token: owner() });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ usage_today: 0, usage_this_minute: 0 });
    expect((await track(brandId)).status).toBe(200);
    const overview = await ctx.api.call('GET', base(brandId), { token: owner() });
    expect(overview.body.providers[0]).toMatchObject({ usage_today: 1, daily_limit_total: 20 });
  }, 60_000);

  it('spend `block`: refuses calls that would pass the limit until the period ends; spend reports it', async () => {
    const brandId = brands[2];
    // parcel tracking is priced 0.01 a call: three calls fit a 0.03 limit, the fourth would pass it.
    const key = await createKey(ctx.api, owner(), brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'block-key' },
      spend_limit_amount: 0.03,
      spend_limit_period: 'daily',
      spend_limit_action: 'block',
    });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await track(brandId));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(statuses[3].body.detail).toBe('Spend limit of this key reached');
    const untilMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
    expect(Number(statuses[3].headers.get('retry-after'))).toBeLessThanOrEqual(untilMidnight + 1);
    expect(await received(ctx.api, '/parcel-tracking/')).toHaveLength(3);
    await ctx.api.rt.worker!.drain.flush(); // the calls' usage records, on their way from Redis to MongoDB

    const spend = await ctx.api.call('GET', `${base(brandId)}/${key.integration_id}/spend?days=3`, {
      token: cast.parties.member.token,
    });
    expect(spend.status).toBe(404); // the member belongs to the cast's brand, not this one
    const mine = await ctx.api.call('GET', `${base(brandId)}/${key.integration_id}/spend?days=3`, { token: owner() });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      integration_id: key.integration_id,
      period: 'daily',
      amount: 0.03,
      spend_limit_amount: 0.03,
      limit_reached: true,
      currency: 'USD',
    });
    expect(mine.body.history).toHaveLength(3);
    expect(mine.body.history[2]).toEqual({ date: new Date().toISOString().slice(0, 10), amount: 0.03, calls: 3 });
    const provider = await ctx.api.call('GET', `${base(brandId)}/spend/provider/parcel-tracking`, { token: owner() });
    expect(provider.body).toMatchObject({ integration_id: null, amount: 0.03, period: 'daily', limit_reached: true });
    expect((await ctx.api.call('GET', `${base(brandId)}/spend/provider/maps`, { token: owner() })).status).toBe(404);
    // The list shows the key's spend in its period.
    const list = await ctx.api.call('GET', `${base(brandId)}/all`, { token: owner() });
    expect(list.body.integrations[0].spend_current_period).toBe(0.03);
  });

  it('spend `notify`: e-mails the brand admins once per period and lets calls continue', async () => {
    const brandId = brands[3];
    await ctx.api.call('POST', `/api/v1/dashboard/users/${cast.parties.admin.userId}/brands`, {
      token: ctx.admin,
      body: { brand_id: brandId, role: 'admin' },
    });
    await createKey(ctx.api, owner(), brandId, {
      provider_name: 'parcel-tracking',
      key_label: 'Notify key',
      credentials: { api_key: 'notify-key' },
      spend_limit_amount: 0.02,
      spend_limit_period: 'monthly',
      spend_limit_action: 'notify',
    });
    const statuses = await Promise.all(Array.from({ length: 6 }, () => track(brandId)));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const outbox = async (to: string) => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(to)}`, {
        token: ctx.admin,
      });
      if (res.status !== 200) throw new Error(`outbox: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.messages.filter((m: { subject: string }) => m.subject === 'Spend limit reached: Notify key');
    };
    // The owner (who created the brand) and the admin added to it.
    for (const to of ['owner-limits@a.test', 'admin-limits@a.test']) {
      const mails = await eventually(async () => ((await outbox(to)).length ? outbox(to) : undefined));
      expect(mails).toHaveLength(1);
    }
    expect((await track(brandId)).status).toBe(200);
    await deliveriesSettled(ctx.api); // a second notification, were one sent, would have arrived
    expect(await outbox('owner-limits@a.test')).toHaveLength(1);
    expect(await outbox('member-limits@a.test')).toHaveLength(0);
  }, 60_000);

  it('share_with_pool: a brand without a key uses a pooled key of its client, counted against the owner', async () => {
    const [owning, borrowing] = [brands[4], brands[5]];
    const pooled = await createKey(ctx.api, owner(), owning, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'pooled-key' },
      share_with_pool: true,
      daily_limit: 2,
    });
    const res = await track(borrowing);
    expect(res.status).toBe(200);
    expect((await received(ctx.api, '/parcel-tracking/'))[0].headers['tracking-api-key']).toBe('pooled-key');
    expect((await track(owning)).status).toBe(200);
    const third = await track(borrowing);
    expect(third.status).toBe(429); // the owner's daily limit of 2 covers both brands' calls
    const key = await ctx.api.call('GET', `${base(owning)}/${pooled.integration_id}`, { token: owner() });
    expect(key.body.usage_today).toBe(2);
    // Another client's brand never reaches the pool.
    const other = await ctx.api.call('POST', '/api/v1/brands', {
      token: cast.parties.otherClient.token,
      body: { brand_name: 'Other', slug: 'other-pool' },
    });
    const foreign = await ctx.api.call('POST', '/api/v1/agent/proxy/parcel-tracking', {
      token: cast.parties.otherClient.token,
      headers: { 'x-brand-id': String(other.body.brand_id) },
      body: { method: 'GET', path: '/trackings/X1' },
    });
    expect(foreign.status).toBe(412);
  });

  it('relay calls and spend per client for the admin KPIs', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Totals');
    const brand = await ctx.api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'Totals', slug: 'totals' },
    });
    await createKey(ctx.api, client.triple, brand.body.brand_id, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'totals-key' },
    });
    for (let i = 0; i < 2; i++) {
      const res = await ctx.api.call('POST', '/api/v1/agent/proxy/parcel-tracking', {
        token: client.triple,
        headers: { 'x-brand-id': String(brand.body.brand_id) },
        body: { path: '/trackings/T1' },
      });
      expect(res.status).toBe(200);
    }
    await ctx.api.rt.worker!.drain.flush();
    const today = new Date().toISOString().slice(0, 10);
    expect(await relayUsageTotals(client.client_id, { from: today, to: today })).toEqual({ calls: 2, spend: 0.02 });
    expect(await relayUsageTotals(client.client_id, { from: '2020-01-01', to: '2020-01-31' })).toEqual({
      calls: 0,
      spend: 0,
    });
    const platform = await relayUsageTotals(null, { from: today, to: today });
    expect(platform.calls).toBeGreaterThan(2);
  });

  it('sync-billing reconciles recorded spend with the usage report; 409 for a provider without billing', async () => {
    const brandId = brands[0];
    const key = await createKey(ctx.api, owner(), brandId, { provider_name: 'messaging', credentials: MESSAGING });
    for (let i = 0; i < 3; i++) {
      const sent = await ctx.api.call('POST', '/api/v1/agent/proxy/messaging', {
        token: owner(),
        headers: { 'x-brand-id': String(brandId) },
        body: { path: '/Messages.json', form_body: { To: '+31612345678', From: 'Lead', Body: `m${i}` } },
      });
      expect(sent.status).toBe(200);
    }
    const spendUrl = `${base(brandId)}/${key.integration_id}/spend`;
    await ctx.api.rt.worker!.drain.flush();
    // the list price, 0.0079 a message
    expect((await ctx.api.call('GET', spendUrl, { token: owner() })).body.amount).toBe(0.0237);
    const sync = await ctx.api.call('POST', `${base(brandId)}/${key.integration_id}/sync-billing`, { token: owner() });
    expect(sync.status).toBe(202);
    expect(sync.body).toMatchObject({
      integration_id: key.integration_id,
      status: 'queued',
      sync_id: `billing-sync-${key.integration_id}`,
    });
    // The sandbox bills 0.0083 a message (carrier fees): recorded spend follows the provider's figure.
    await eventually(
      async () => ((await ctx.api.call('GET', spendUrl, { token: owner() })).body.amount === 0.0249 ? true : undefined),
      30_000,
    );
    // Another sync once this run has ended (409 while it runs).
    await eventually(
      async () =>
        (await ctx.api.call('POST', `${base(brandId)}/${key.integration_id}/sync-billing`, { token: owner() }))
          .status === 202
          ? true
          : undefined,
      30_000,
      300,
    );
    await ctx.api.rt.engines.temporal.workflow.getHandle(billingSyncId(key.integration_id)).result();
    // a second sync changes nothing
    expect((await ctx.api.call('GET', spendUrl, { token: owner() })).body.amount).toBe(0.0249);
    // 409 while a sync of the key runs (this account's report takes 3 s).
    const slow = await createKey(ctx.api, owner(), brandId, {
      provider_name: 'messaging',
      is_primary: false,
      credentials: { account_sid: 'ACSLOW0001', auth_token: 'slow-token' },
    });
    expect(
      (await ctx.api.call('POST', `${base(brandId)}/${slow.integration_id}/sync-billing`, { token: owner() })).status,
    ).toBe(202);
    const running = await ctx.api.call('POST', `${base(brandId)}/${slow.integration_id}/sync-billing`, {
      token: owner(),
    });
    expect(running.status).toBe(409);
    expect(running.body.detail).toBe('A billing sync is already running for this key');
    const maps = await createKey(ctx.api, owner(), brandId, {
      provider_name: 'maps',
      credentials: { api_key: 'no-billing-api' },
    });
    expect(
      (await ctx.api.call('POST', `${base(brandId)}/${maps.integration_id}/sync-billing`, { token: owner() })).status,
    ).toBe(409);
    expect(
      (
        await ctx.api.call('POST', `${base(brandId)}/${maps.integration_id}/sync-billing`, {
          token: cast.parties.member.token,
        })
      ).status,
    ).toBe(404);
  }, 60_000);
});

describe('an unreachable, silent or redirecting provider', () => {
  // Parcel tracking points at a closed port, messaging at a server that never answers, maps at one that
  // redirects every call to another server (which must never hear from the relay).
  const env: Record<string, string> = { RELAY_PARCEL_TRACKING_URL: 'http://127.0.0.1:9/v4', RELAY_TIMEOUT_MS: '1500' };
  const silent = http.createServer(() => undefined);
  let heard = 0;
  silent.on('request', () => heard++);
  let elsewhereHeard = 0;
  const elsewhere = http.createServer((_req, res) => {
    elsewhereHeard++;
    res.setHeader('content-type', 'application/json').end('{"status":"OK","results":[]}');
  });
  const redirecting = http.createServer((req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}${req.url}` }).end();
  });
  const servers = [silent, elsewhere, redirecting];
  beforeAll(async () => {
    for (const server of servers) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env.RELAY_MESSAGING_URL = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    env.RELAY_MAPS_URL = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/maps/api`;
  });
  afterAll(() => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });
  const ctx = useTestApi(env);

  it('answers 503 with a masked detail and does not count the spend', async () => {
    const cast = await brandCast(ctx.api, ctx.admin, 'down');
    const key = await createKey(ctx.api, cast.parties.owner.token, cast.brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'down-key' },
    });
    const res = await ctx.api.call('POST', '/api/v1/agent/proxy/parcel-tracking', {
      token: cast.parties.owner.token,
      headers: { 'x-brand-id': String(cast.brandId) },
      body: { method: 'GET', path: '/trackings/3SABC' },
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Provider temporarily unavailable' });
    const spend = await ctx.api.call('GET', `${base(cast.brandId)}/${key.integration_id}/spend?days=1`, {
      token: cast.parties.owner.token,
    });
    expect(spend.body.amount).toBe(0);
    const tested = await ctx.api.call('POST', `${base(cast.brandId)}/${key.integration_id}/test`, {
      token: cast.parties.owner.token,
    });
    expect(tested.body).toMatchObject({ ok: false, provider_status: null, message: 'Provider unreachable' });

    await createKey(ctx.api, cast.parties.owner.token, cast.brandId, {
      provider_name: 'messaging',
      credentials: MESSAGING,
    });
    // A server that never answers: only RELAY_TIMEOUT_MS ends the call, so its 503 is the timeout's proof.
    const slow = await ctx.api.call('POST', '/api/v1/agent/proxy/messaging', {
      token: cast.parties.owner.token,
      headers: { 'x-brand-id': String(cast.brandId) },
      body: { path: '/Messages.json', form_body: { To: '+31612345678' } },
    });
    expect(slow.status).toBe(503); // bounded by RELAY_TIMEOUT_MS
    expect(slow.body).toEqual({ detail: 'Provider temporarily unavailable' });
    expect(heard).toBe(1);
  }, 60_000);

  it('does not follow a redirect: the agent gets the 3xx as the provider refusing, the other host hears nothing', async () => {
    const cast = await brandCast(ctx.api, ctx.admin, 'moved');
    await createKey(ctx.api, cast.parties.owner.token, cast.brandId, {
      provider_name: 'maps',
      credentials: { api_key: 'moved-key' },
    });
    const res = await ctx.api.call('POST', '/api/v1/agent/proxy/maps/geocode/json', {
      token: cast.parties.owner.token,
      headers: { 'x-brand-id': String(cast.brandId) },
      body: { params: { address: 'Dam 1, Amsterdam' } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ provider_status: 302 });
    expect(elsewhereHeard).toBe(0);
  }, 60_000);
});

import mongoose from 'mongoose';
import { useTestApi } from '../support/harness';
import { brandCast } from '../brands/brand-helpers';
import { base, createKey, MAPS_KEY, MESSAGING } from './helpers';

describe('integration keys', () => {
  const ctx = useTestApi();
  let cast: Awaited<ReturnType<typeof brandCast>>;
  beforeAll(async () => {
    cast = await brandCast(ctx.api, ctx.admin, 'keys');
  }, 60_000);

  it('lists the three provider templates with fields, relay paths and prices', async () => {
    const res = await ctx.api.call('GET', `${base(cast.brandId)}/providers`, { token: cast.parties.member.token });
    expect(res.status).toBe(200);
    const names = res.body.providers.map((p: { provider_name: string }) => p.provider_name);
    expect(names).toEqual(['maps', 'parcel-tracking', 'messaging']);
    const messaging = res.body.providers.find((p: any) => p.provider_name === 'messaging');
    expect(messaging.fields.filter((f: any) => f.required).map((f: any) => f.name)).toEqual([
      'account_sid',
      'auth_token',
    ]);
    expect(messaging.fields.find((f: any) => f.name === 'auth_token').type).toBe('secret');
    expect(messaging.supports_billing_sync).toBe(true);
    expect(messaging.price_per_call).toBeGreaterThan(0);
    expect(messaging.relay_paths).toContainEqual({ path: '/Messages.json', methods: ['GET', 'POST'] });
  });

  it('validates credentials against the template, naming the field', async () => {
    const token = cast.parties.admin.token;
    const missing = await ctx.api.call('POST', base(cast.brandId), {
      token,
      body: { provider_name: 'messaging', key_label: 'x', credentials: { account_sid: 'AC1' } },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toContainEqual(expect.objectContaining({ field: 'credentials.auth_token' }));
    const unknown = await ctx.api.call('POST', base(cast.brandId), {
      token,
      body: { provider_name: 'maps', key_label: 'x', credentials: { api_key: 'k', secret: 's' } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ field: 'credentials.secret' }));
    const wrongType = await ctx.api.call('POST', base(cast.brandId), {
      token,
      body: { provider_name: 'maps', key_label: 'x', credentials: { api_key: 42 } },
    });
    expect(wrongType.status).toBe(422);
    const provider = await ctx.api.call('POST', base(cast.brandId), {
      token,
      body: { provider_name: 'fax', key_label: 'x', credentials: {} },
    });
    expect(provider.status).toBe(422);
    expect(provider.body.errors[0].field).toBe('provider_name');
  });

  it('stores credentials encrypted, returns them masked, and keeps one primary per provider and country', async () => {
    const token = cast.parties.admin.token;
    const first = await createKey(ctx.api, token, cast.brandId, {
      provider_name: 'maps',
      credentials: { api_key: MAPS_KEY },
      daily_limit: 100,
    });
    expect(first.credentials_masked).toEqual({ api_key: `••••••••••••${MAPS_KEY.slice(-4)}` });
    expect(JSON.stringify(first)).not.toContain(MAPS_KEY);
    expect(first).toMatchObject({
      provider_name: 'maps',
      is_primary: true,
      is_active: true,
      usage_today: 0,
      daily_limit: 100,
      spend_current_period: 0,
    });

    const raw = await mongoose.connection
      .db!.collection('integrations')
      .findOne({ _id: first.integration_id as never });
    expect(JSON.stringify(raw)).not.toContain(MAPS_KEY);
    expect(raw!.credentials_sealed).toMatch(/^v2:[0-9a-f]{12}:/);

    const second = await createKey(ctx.api, token, cast.brandId, {
      provider_name: 'maps',
      credentials: { api_key: 'second-maps-key-999' },
    });
    expect(second.is_primary).toBe(true);
    const again = await ctx.api.call('GET', `${base(cast.brandId)}/${first.integration_id}`, { token });
    expect(again.body.is_primary).toBe(false);
    const nl = await createKey(ctx.api, token, cast.brandId, {
      provider_name: 'maps',
      country_code: 'NL',
      credentials: { api_key: 'dutch-maps-key-777' },
    });
    expect(
      (await ctx.api.call('GET', `${base(cast.brandId)}/${second.integration_id}`, { token })).body.is_primary,
    ).toBe(true);

    const list = await ctx.api.call('GET', `${base(cast.brandId)}/all?provider_name=maps`, {
      token: cast.parties.member.token,
    });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.integrations[0].is_primary).toBe(true);

    const overview = await ctx.api.call('GET', base(cast.brandId), { token: cast.parties.member.token });
    expect(overview.status).toBe(200);
    expect(overview.body.providers).toEqual([
      expect.objectContaining({ provider_name: 'maps', keys_total: 3, keys_active: 3, daily_limit_total: null }),
    ]);

    const patched = await ctx.api.call('PATCH', `${base(cast.brandId)}/${nl.integration_id}`, {
      token,
      body: { is_active: false, credentials: { api_key: 'replaced-maps-key-555' }, spend_limit_amount: 5 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      is_active: false,
      spend_limit_amount: 5,
      spend_limit_period: 'monthly',
      spend_limit_action: 'notify',
    });
    expect(patched.body.credentials_masked.api_key).toMatch(/-555$/);

    const removed = await ctx.api.call('DELETE', `${base(cast.brandId)}/${nl.integration_id}`, { token });
    expect(removed.body).toEqual({ integration_id: nl.integration_id, deleted: true });
    expect((await ctx.api.call('GET', `${base(cast.brandId)}/${nl.integration_id}`, { token })).status).toBe(404);
  });

  it('role matrix: brand admins write, members read, others see nothing', async () => {
    const key = await createKey(ctx.api, cast.parties.owner.token, cast.brandId, {
      provider_name: 'messaging',
      credentials: MESSAGING,
    });
    const one = `${base(cast.brandId)}/${key.integration_id}`;
    const body = { provider_name: 'maps', key_label: 'x', credentials: { api_key: 'abc' } };
    const expectations: [string, number, number][] = [
      // party, read status, write status
      ['owner', 200, 201],
      ['admin', 200, 201],
      ['super_admin', 200, 201],
      ['triple', 200, 201],
      ['member', 200, 403],
      ['outsider', 404, 404],
      ['otherClient', 404, 404],
      ['otherTriple', 404, 404],
    ];
    for (const [party, read, write] of expectations) {
      const token = cast.parties[party].token;
      expect([party, (await ctx.api.call('GET', one, { token })).status]).toEqual([party, read]);
      expect([
        party,
        (await ctx.api.call('GET', `${base(cast.brandId)}/${key.integration_id}/spend`, { token })).status,
      ]).toEqual([party, read]);
      expect([party, (await ctx.api.call('POST', base(cast.brandId), { token, body })).status]).toEqual([party, write]);
      const writeOne = write === 201 ? 200 : write;
      expect([party, (await ctx.api.call('POST', `${one}/reset-usage`, { token })).status]).toEqual([party, writeOne]);
      expect([party, (await ctx.api.call('PATCH', one, { token, body: { key_label: `by ${party}` } })).status]).toEqual(
        [party, writeOne],
      );
    }
    // another client's brand id for the same integration id: 404, never the key
    expect(
      (
        await ctx.api.call('GET', `/api/v1/brands/999999/integrations/${key.integration_id}`, {
          token: cast.parties.otherClient.token,
        })
      ).status,
    ).toBe(404);
  });

  it('tests a key with one live call', async () => {
    const token = cast.parties.admin.token;
    const good = await createKey(ctx.api, token, cast.brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'parcel-good-key-1' },
    });
    const bad = await createKey(ctx.api, token, cast.brandId, {
      provider_name: 'parcel-tracking',
      is_primary: false,
      credentials: { api_key: 'sbx-invalid' },
    });
    const ok = await ctx.api.call('POST', `${base(cast.brandId)}/${good.integration_id}/test`, { token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ integration_id: good.integration_id, ok: true, provider_status: 200 });
    expect(ok.body.latency_ms).toBeGreaterThanOrEqual(0);
    const refused = await ctx.api.call('POST', `${base(cast.brandId)}/${bad.integration_id}/test`, { token });
    expect(refused.body).toMatchObject({ ok: false, provider_status: 401 });
    const maps = await createKey(ctx.api, token, cast.brandId, {
      provider_name: 'maps',
      is_primary: false,
      credentials: { api_key: 'sbx-invalid' },
    });
    expect(
      (await ctx.api.call('POST', `${base(cast.brandId)}/${maps.integration_id}/test`, { token })).body,
    ).toMatchObject({ ok: false, provider_status: 200 });
  });
});

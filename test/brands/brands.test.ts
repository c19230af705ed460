import { createClient, useTestApi } from '../support/harness';
import { startSecondApi } from '../support/second-api';
import { INFORMATION_FIELDS, SETTINGS_DEFAULTS } from '../../src/brands/brand.views';

describe('brands, settings and information', () => {
  const ctx = useTestApi();

  it('a super_admin creates a brand for the client it names; without one, or an unknown one, it is 422', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Named');
    const none = await ctx.api.call('POST', '/api/v1/brands', {
      token: ctx.admin,
      body: { brand_name: 'X', slug: 'x' },
    });
    expect(none.status).toBe(422);
    const unknown = await ctx.api.call('POST', '/api/v1/brands', {
      token: ctx.admin,
      headers: { 'x-selected-client-id': '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d' },
      body: { brand_name: 'X', slug: 'x' },
    });
    expect([unknown.status, unknown.body.errors?.[0]?.field]).toEqual([422, 'X-Selected-Client-Id']);
    const orphans = await ctx.api.call('GET', '/api/v1/brands?page_size=100', {
      token: ctx.admin,
      headers: { 'x-selected-client-id': '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d' },
    });
    expect(orphans.body.total).toBe(0);
    const res = await ctx.api.call('POST', '/api/v1/brands', {
      token: ctx.admin,
      headers: { 'x-selected-client-id': client.client_id },
      body: { brand_name: 'Zonnebloem', slug: 'zonnebloem' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      brand_name: 'Zonnebloem',
      slug: 'zonnebloem',
      client_id: client.client_id,
      is_active: true,
      logo_url: null,
      role: 'admin',
    });
    expect(Number.isInteger(res.body.brand_id)).toBe(true);
    const dup = await ctx.api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'Other', slug: 'zonnebloem' },
    });
    expect(dup.status).toBe(409);
    // Slugs are per client: another client may use the same one.
    const other = await createClient(ctx.api, ctx.admin, 'Elsewhere');
    expect(
      (
        await ctx.api.call('POST', '/api/v1/brands', {
          token: other.triple,
          body: { brand_name: 'Z', slug: 'zonnebloem' },
        })
      ).status,
    ).toBe(201);
  });

  it('20 concurrent creations get 20 distinct ids, also after the id counter is lost', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Many');
    const create = (i: number) =>
      ctx.api.call('POST', '/api/v1/brands', {
        token: client.triple,
        body: { brand_name: `B${i}`, slug: `many-${i}` },
      });
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i)));
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(201));
    await ctx.api.rt.engines.redis.del('brand-id'); // Redis restarted without its data
    const second = await Promise.all(Array.from({ length: 5 }, (_, i) => create(100 + i)));
    expect(second.map((r) => r.status)).toEqual(Array(5).fill(201));
    const ids = [...first, ...second].map((r) => r.body.brand_id);
    expect(new Set(ids).size).toBe(25);
  });

  it('creations spread over two API processes, right after the counter is lost, get distinct ids', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Two processes');
    const second = await startSecondApi(ctx.api);
    try {
      const createOn = (url: string, i: number) =>
        fetch(`${url}/api/v1/brands`, {
          method: 'POST',
          headers: { authorization: `Bearer ${client.triple}`, 'content-type': 'application/json' },
          body: JSON.stringify({ brand_name: `P${i}`, slug: `process-${i}` }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { brand_id: number } }));
      const earlier = [
        await createOn(ctx.api.url, 100),
        await createOn(second.url, 101),
        await createOn(ctx.api.url, 102),
      ];
      // lost: the next ids collide with stored ones until both processes re-seed it
      await ctx.api.rt.engines.redis.del('brand-id');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createOn(i % 2 ? second.url : ctx.api.url, i)),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(new Set([...earlier, ...results].map((r) => r.body.brand_id)).size).toBe(23);
    } finally {
      second.stop();
    }
  });

  it('concurrent creations with one slug: one brand, the others 409', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Same slug');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ctx.api.call('POST', '/api/v1/brands', {
          token: client.triple,
          body: { brand_name: `Same ${i}`, slug: 'same' },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const list = await ctx.api.call('GET', '/api/v1/brands', { token: client.triple });
    expect(list.body.brands.map((b: { slug: string }) => b.slug)).toEqual(['same']);
  });

  it('settings and information start from documented defaults and change only the fields given', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Settings');
    const { body: brand } = await ctx.api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'S', slug: 's' },
    });
    const path = `/api/v1/brands/${brand.brand_id}`;
    const settings = await ctx.api.call('GET', `${path}/settings`, { token: client.triple });
    expect(settings.body).toMatchObject({ ...SETTINGS_DEFAULTS, brand_id: brand.brand_id, logo_url: null });

    const patched = await ctx.api.call('PATCH', `${path}/settings`, {
      token: client.triple,
      body: { default_campaign_quota_daily: 250, brand_tone: 'Playful' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      ...SETTINGS_DEFAULTS,
      default_campaign_quota_daily: 250,
      brand_tone: 'Playful',
    });
    const cleared = await ctx.api.call('PATCH', `${path}/settings`, {
      token: client.triple,
      body: { brand_tone: null, fuzziq_enabled: true },
    });
    expect(cleared.body).toMatchObject({ default_campaign_quota_daily: 250, brand_tone: null, fuzziq_enabled: true });

    const info = await ctx.api.call('PATCH', `${path}/information`, {
      token: client.triple,
      body: { city: 'Utrecht', country: 'NL', support_email: 'help@s.test' },
    });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      city: 'Utrecht',
      country: 'NL',
      support_email: 'help@s.test',
      street1: null,
      website: null,
    });
    const again = await ctx.api.call('PATCH', `${path}/information`, {
      token: client.triple,
      body: { street1: 'Oudegracht 12' },
    });
    expect(again.body).toMatchObject({ city: 'Utrecht', street1: 'Oudegracht 12' });

    const brandPatch = await ctx.api.call('PATCH', path, {
      token: client.triple,
      body: { subscription_status: 'inactive', billing_email: 'pay@s.test' },
    });
    expect(brandPatch.body).toMatchObject({
      brand_name: 'S',
      subscription_status: 'inactive',
      billing_email: 'pay@s.test',
      is_active: true,
    });
  });

  it('concurrent changes of different fields all stay (FerretDB does not update a document atomically)', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Concurrent fields');
    const { body: brand } = await ctx.api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'C', slug: 'c' },
    });
    // Every information field, each with a value of its format.
    const formatted: Record<string, string> = {
      website: 'https://c.example',
      country: 'NL',
      support_email: 'help@c.example',
    };
    const fields = INFORMATION_FIELDS;
    const value = (f: string) => formatted[f] ?? `${f} value`;
    const settings = {
      default_rate_limit: 7,
      default_campaign_quota_daily: 8,
      brand_voice: 'Warm',
      brand_promise: 'Fresh',
    };
    const results = await Promise.all([
      ...fields.map((f) =>
        ctx.api.call('PATCH', `/api/v1/brands/${brand.brand_id}/information`, {
          token: client.triple,
          body: { [f]: value(f) },
        }),
      ),
      ...Object.entries(settings).map(([k, v]) =>
        ctx.api.call('PATCH', `/api/v1/brands/${brand.brand_id}/settings`, { token: client.triple, body: { [k]: v } }),
      ),
    ]);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const info = await ctx.api.call('GET', `/api/v1/brands/${brand.brand_id}/information`, { token: client.triple });
    expect(info.body).toMatchObject(Object.fromEntries(fields.map((f) => [f, value(f)])));
    const stored = await ctx.api.call('GET', `/api/v1/brands/${brand.brand_id}/settings`, { token: client.triple });
    expect(stored.body).toMatchObject(settings);
  });

  it.each([
    ['settings', { default_rate_limit: -1 }, 'default_rate_limit'],
    ['settings', { default_rate_limit: 10_000_000_000 }, 'default_rate_limit'],
    ['settings', { brand_voice: 'x'.repeat(2001) }, 'brand_voice'],
    ['settings', { logo_url: 'https://elsewhere.test/logo.png' }, 'logo_url'],
    ['information', { support_email: 'not-an-address' }, 'support_email'],
    ['information', { country: 'Netherlands' }, 'country'],
    ['information', { country: 'XX' }, 'country'],
    ['information', { website: 'javascript:alert(1)' }, 'website'],
    ['information', { website: 'https://\u00cf.example' }, 'website'],
  ])('a bad %s field is 422 naming it: %j', async (part, body, field) => {
    const client = await createClient(ctx.api, ctx.admin, `Bad ${field.replace(/_/g, '')} ${String(body).length}`);
    const { body: brand } = await ctx.api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'B', slug: 'b' },
    });
    const res = await ctx.api.call('PATCH', `/api/v1/brands/${brand.brand_id}/${part}`, { token: client.triple, body });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.errors)).toContain(field);
  });
});

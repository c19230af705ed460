import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { KeyRing } from '../../src/lib/crypto';
import { IntegrationModel } from '../../src/integrations/integration.model';
import { maskCredentials } from '../../src/integrations/providers';
import { useTestApi } from '../support/harness';
import { brandCast } from '../brands/brand-helpers';
import { approvedToken } from '../agents/agent-helpers';
import { createKey, MAPS_KEY, MESSAGING, PARCEL_KEY, received, resetSandbox } from './helpers';

const OLD_KEY = randomBytes(32).toString('hex');
const CURRENT_KEY = randomBytes(32).toString('hex');

const hostOf = (url: string) => ({ hostname: new URL(url).hostname, port: Number(new URL(url).port) });

describe('provider relays', () => {
  // The key ring of this API: the current key, and the one it replaced (a rotation).
  const ctx = useTestApi({ CREDENTIALS_KEY: CURRENT_KEY, CREDENTIALS_KEY_PREVIOUS: OLD_KEY });
  let cast: Awaited<ReturnType<typeof brandCast>>;
  let as: { token: string; headers: Record<string, string> };
  beforeAll(async () => {
    cast = await brandCast(ctx.api, ctx.admin, 'relay');
    // A brand member calling with the brand named, plus what must never be forwarded.
    as = {
      token: cast.parties.member.token,
      headers: {
        'x-brand-id': String(cast.brandId),
        cookie: 'lead_session=caller-cookie-secret',
        'x-forwarded-for': '203.0.113.9',
        'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
        'x-hop': 'caller-header',
      },
    };
  }, 60_000);
  beforeEach(() => resetSandbox(ctx.api));

  const relay = (path: string, body: unknown, who = as) =>
    ctx.api.call('POST', `/api/v1/agent/proxy/${path}`, { token: who.token, headers: who.headers, body });
  /** A POST whose path is sent exactly as given (fetch, and node:http given a URL, resolve `.` and `..` first). */
  const rawPost = (path: string, who: typeof as, body: unknown) =>
    new Promise<{ status: number; body: { detail?: string } }>((resolve, reject) => {
      const headers = { ...who.headers, authorization: `Bearer ${who.token}`, 'content-type': 'application/json' };
      http
        .request({ ...hostOf(ctx.api.url), path, method: 'POST', headers }, (res) => {
          let text = '';
          res
            .on('data', (chunk) => (text += chunk))
            .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        })
        .on('error', reject)
        .end(JSON.stringify(body));
    });

  it('answers 412 while the brand has no active key for the provider', async () => {
    const res = await relay('parcel-tracking', { method: 'GET', path: '/trackings/3SABC' });
    expect(res.status).toBe(412);
    expect(res.body.detail).toBe('No active parcel-tracking credential for this brand');
  });

  it('maps: injects the key as `key`, forwards the multi-segment path and params, nothing of the caller', async () => {
    await createKey(ctx.api, cast.parties.admin.token, cast.brandId, {
      provider_name: 'maps',
      credentials: { api_key: MAPS_KEY },
    });
    const res = await relay('maps/geocode/json', {
      params: { address: 'Oudegracht 12, Utrecht', key: 'caller-supplied' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'OK',
      results: [expect.objectContaining({ formatted_address: 'Oudegracht 12, Utrecht' })],
    });
    const encoded = await relay('maps/place%2Fdetails%2Fjson', { params: { place_id: 'ChIJabc' } });
    expect(encoded.status).toBe(200);
    expect(encoded.body.result.place_id).toBe('ChIJabc');
    const got = await received(ctx.api, '/maps/api/');
    expect(got.map((r) => r.path)).toEqual(['/maps/api/geocode/json', '/maps/api/place/details/json']);
    expect(got[0].query).toEqual({ address: 'Oudegracht 12, Utrecht', key: MAPS_KEY });
    for (const r of got) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers['x-forwarded-for']).toBeUndefined();
      expect(r.headers['x-hop']).toBeUndefined();
      expect(r.headers['proxy-authorization']).toBeUndefined();
      expect(r.headers['x-brand-id']).toBeUndefined();
      expect(JSON.stringify(r)).not.toContain(cast.parties.member.token);
    }
  });

  it('maps: text search reaches the same sandbox provider the jobs use, with the brand key', async () => {
    const res = await relay('maps/place/textsearch/json', { params: { query: 'bakery in Utrecht' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('OK');
    expect(res.body.results.length).toBeGreaterThan(0);
    expect((await received(ctx.api, '/maps/api/'))[0].query).toEqual({ query: 'bakery in Utrecht', key: MAPS_KEY });
  });

  it('maps: refuses paths off the allowlist and other hosts (400), `.` and `..` segments (422), forwarding none', async () => {
    const offList = [
      'admin/json',
      'geocode%252Fjson',
      'http%3A%2F%2Fevil.test%2Fgeocode%2Fjson',
      '%2F%2Fevil.test%2Fgeocode%2Fjson',
      'geocode%2Fjson%3Fkey%3Dx',
      'geocode/json/',
    ];
    for (const path of offList) {
      const res = await relay(`maps/${path}`, { params: {} });
      expect([path, res.status]).toEqual([path, 400]);
    }
    const dotSegments = [
      'geocode%2F..%2F..%2Fadmin',
      'geocode%2Fjson%2F..%2F..%2Fx',
      '..%2Fgeocode%2Fjson',
      '%2e%2e%2Fgeocode%2Fjson',
      'geocode%2F.%2Fjson',
      'geocode%2F%252E%252e%2Fjson',
    ];
    for (const path of dotSegments) {
      const res = await relay(`maps/${path}`, { params: {} });
      expect([path, res.status, res.body.errors]).toEqual([path, 422, [expect.objectContaining({ field: 'path' })]]);
    }
    // Sent as they are (fetch would resolve them before sending, as the MCP server's fetch did).
    for (const path of ['geocode/../json', './geocode/json', 'geocode/%2e%2e/json', '../../../auth/pat/status']) {
      const res = await rawPost(`/api/v1/agent/proxy/maps/${path}`, as, { params: {} });
      expect([path, res.status, res.body.detail]).toEqual([path, 422, expect.stringContaining('`..` segment')]);
    }
    expect(await received(ctx.api, '/')).toEqual([]);
  });

  it('parcel tracking: key in its header, JSON body, provider 4xx as 400 with its status and body', async () => {
    await createKey(ctx.api, cast.parties.admin.token, cast.brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: PARCEL_KEY },
    });
    const one = await relay('parcel-tracking', {
      method: 'GET',
      path: '/trackings/3SABCD1234567',
      params: { lang: 'en' },
    });
    expect(one.status).toBe(200);
    expect(one.body.data.tracking.tracking_number).toBe('3SABCD1234567');
    const created = await relay('parcel-tracking', {
      method: 'POST',
      path: '/trackings',
      json_body: { tracking: { tracking_number: 'NEW123' } },
    });
    expect(created.status).toBe(200);
    expect(created.body.data.tracking.tracking_number).toBe('NEW123');
    const missing = await relay('parcel-tracking', { method: 'GET', path: '/trackings/NOTFOUND1' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ provider_status: 404, provider_body: { meta: { code: 4004 } } });
    const got = await received(ctx.api, '/parcel-tracking/');
    expect(got).toHaveLength(3);
    expect(got[0]).toMatchObject({
      method: 'GET',
      path: '/parcel-tracking/v4/trackings/3SABCD1234567',
      query: { lang: 'en' },
    });
    expect(got[1].body).toBe(JSON.stringify({ tracking: { tracking_number: 'NEW123' } }));
    for (const r of got) {
      expect(r.headers['tracking-api-key']).toBe(PARCEL_KEY);
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
    }
  });

  it('parcel tracking: `.` and `..` segments (422), the allowlist (encoded slashes, other hosts, methods), bounded answers', async () => {
    const dotSegments = [
      '/trackings/../couriers',
      '/trackings/%2e%2e/couriers',
      '/trackings%2F..%2Fadmin',
      '/./couriers',
      '/trackings/\\..\\x',
    ];
    for (const path of dotSegments) {
      const res = await relay('parcel-tracking', { method: 'GET', path });
      expect([path, res.status, res.body.errors]).toEqual([path, 422, [expect.objectContaining({ field: 'path' })]]);
    }
    expect((await relay('messaging', { method: 'GET', path: '/Messages/%2E./x.json' })).status).toBe(422);
    const bad: [string, string][] = [
      ['GET', '/trackings/a/b'],
      ['GET', '//evil.test/trackings'],
      ['GET', '/trackings/x?key=1'],
      ['GET', '/trackings/x#frag'],
      ['GET', '/admin'],
      ['DELETE', '/couriers'],
      ['PATCH', '/trackings'],
    ];
    for (const [method, path] of bad) {
      const res = await relay('parcel-tracking', { method, path });
      expect([path, res.status]).toEqual([path, 400]);
    }
    // not a path at all
    expect((await relay('parcel-tracking', { method: 'GET', path: 'http://evil.test/trackings' })).status).toBe(422);
    expect(await received(ctx.api, '/')).toEqual([]);
    const huge = await relay('parcel-tracking', { method: 'GET', path: '/trackings/HUGE' });
    expect(huge.status).toBe(502);
  });

  it('messaging: account id filled in, basic auth, form body with the default sender', async () => {
    await createKey(ctx.api, cast.parties.admin.token, cast.brandId, {
      provider_name: 'messaging',
      credentials: { ...MESSAGING, from_number: '+31600000000' },
    });
    const sent = await relay('messaging', {
      path: '/Messages.json',
      form_body: { To: '+31612345678', Body: 'Your order is ready' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      status: 'queued',
      to: '+31612345678',
      from: '+31600000000',
      account_sid: MESSAGING.account_sid,
    });
    const refused = await relay('messaging', { path: '/Messages.json', form_body: { Body: 'no recipient' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ provider_status: 400, provider_body: { code: 21604 } });
    const [first] = await received(ctx.api, '/messaging/');
    expect(first.path).toBe(`/messaging/2010-04-01/Accounts/${MESSAGING.account_sid}/Messages.json`);
    expect(first.headers.authorization).toBe(
      `Basic ${Buffer.from(`${MESSAGING.account_sid}:${MESSAGING.auth_token}`).toString('base64')}`,
    );
    expect(first.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(first.body))).toEqual({
      To: '+31612345678',
      Body: 'Your order is ready',
      From: '+31600000000',
    });
    expect(first.headers.cookie).toBeUndefined();
  });

  it('an agent access token acts for its brand', async () => {
    const { token } = await approvedToken(ctx.api, ctx.admin, cast.clientA);
    const res = await relay('maps/geocode/json', { params: { address: 'Dam 1, Amsterdam' } }, { token, headers: {} });
    expect(res.status).toBe(200);
    const [r] = await received(ctx.api, '/maps/api/');
    expect(r.query.key).toBe(MAPS_KEY);
    expect(JSON.stringify(r)).not.toContain(token);
  }, 60_000);

  it("X-Country-Code picks the brand's key for that country; activeCredential makes the same choice", async () => {
    const brand = await ctx.api.call('POST', '/api/v1/brands', {
      token: cast.parties.owner.token,
      body: { brand_name: 'Countries', slug: 'countries' },
    });
    const brandId = brand.body.brand_id as number;
    await createKey(ctx.api, cast.parties.owner.token, brandId, {
      provider_name: 'maps',
      credentials: { api_key: 'global-maps-key' },
    });
    await createKey(ctx.api, cast.parties.owner.token, brandId, {
      provider_name: 'maps',
      country_code: 'NL',
      credentials: { api_key: 'dutch-maps-key' },
    });
    const who = (country?: string) => ({
      token: cast.parties.owner.token,
      headers: { 'x-brand-id': String(brandId), ...(country ? { 'x-country-code': country } : {}) },
    });
    for (const [country, key] of [
      ['NL', 'dutch-maps-key'],
      ['BE', 'global-maps-key'],
      [undefined, 'global-maps-key'],
    ] as const) {
      await resetSandbox(ctx.api);
      expect((await relay('maps/geocode/json', { params: { address: 'x' } }, who(country))).status).toBe(200);
      expect([country, (await received(ctx.api, '/maps/api/'))[0].query.key]).toEqual([country, key]);
    }
    const { activeCredential } = ctx.api.rt.modules.integrations.service;
    const q = { client_id: cast.clientA.client_id, brand_id: brandId, provider: 'maps' as const };
    expect(await activeCredential({ ...q, country_code: 'NL' })).toEqual({ api_key: 'dutch-maps-key' });
    expect(await activeCredential(q)).toEqual({ api_key: 'global-maps-key' });
    expect(await activeCredential({ ...q, provider: 'messaging' })).toBeNull();
    expect(await activeCredential({ ...q, client_id: cast.clientB.client_id })).toBeNull(); // another tenant's brand id
  });

  /**
   * A maps key of a new brand, its credentials sealed under `sealingKey` behind the service's back, and a geocode
   * call through the relay that uses it.
   */
  async function sealedMapsKey(sealingKey: string, key: { id: number; label: string; brand: string; api_key: string }) {
    const brand = await ctx.api.call('POST', '/api/v1/brands', {
      token: cast.parties.owner.token,
      body: { brand_name: key.brand, slug: key.brand.toLowerCase().replace(/ /g, '-') },
    });
    const brandId = brand.body.brand_id as number;
    const credentials = { api_key: key.api_key };
    await IntegrationModel.create({
      _id: key.id,
      client_id: cast.clientA.client_id,
      brand_id: brandId,
      provider_name: 'maps',
      key_label: key.label,
      is_primary: true,
      credentials_sealed: new KeyRing(sealingKey).encrypt(JSON.stringify(credentials)),
      credentials_masked: maskCredentials(credentials),
    });
    await ctx.api.rt.modules.integrations.keys.changed();
    const res = await relay(
      'maps/geocode/json',
      { params: { address: 'x' } },
      { token: cast.parties.owner.token, headers: { 'x-brand-id': String(brandId) } },
    );
    return { brandId, credentials, res };
  }

  it('key rotation: a credential sealed under the previous key still opens; new ones use the current key', async () => {
    const { brandId, credentials, res } = await sealedMapsKey(OLD_KEY, {
      id: 900_001,
      label: 'old',
      brand: 'Rotated',
      api_key: 'sealed-under-old-key-4242',
    });
    expect(res.status).toBe(200);
    expect((await received(ctx.api, '/maps/api/'))[0].query.key).toBe(credentials.api_key);
    const fresh = await createKey(ctx.api, cast.parties.owner.token, brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: 'after-rotation' },
    });
    const stored = await IntegrationModel.findOne({
      _id: fresh.integration_id,
      client_id: cast.clientA.client_id,
    }).lean();
    expect(KeyRing.keyIdOf(stored!.credentials_sealed)).toBe(new KeyRing(CURRENT_KEY).currentKeyId);
  });

  it('a credential sealed under a key that is not configured answers 503 with a masked detail', async () => {
    const { brandId, res } = await sealedMapsKey(randomBytes(32).toString('hex'), {
      id: 900_002,
      label: 'lost',
      brand: 'Wrong key',
      api_key: 'sealed-under-unknown-key',
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Provider temporarily unavailable' });
    expect(await received(ctx.api, '/')).toEqual([]);
    // Nothing was sent: the call takes no place in the key's windows and costs nothing.
    const key = await ctx.api.call('GET', `/api/v1/brands/${brandId}/integrations/900002`, {
      token: cast.parties.owner.token,
    });
    expect(key.body).toMatchObject({
      usage_today: 0,
      usage_this_minute: 0,
      spend_current_period: 0,
      credentials_masked: { api_key: '••••••••••••-key' },
    });
  });
});

import { SESSION_COOKIE } from '../../src/auth/auth.service';
import { useTestApi, type TestApi } from '../support/harness';
import { callFrom, startReverseProxy, type ReverseProxy } from '../support/reverse-proxy';

/**
 * The console's writes are authenticated by the session cookie, which a browser also attaches to a request another
 * site makes it send. authenticate() refuses such a write (src/auth/authenticate.ts, crossSiteWrite): these tests
 * send what a browser sends, over real HTTP, from each kind of page.
 */

const FOREIGN = 'https://evil.example';
const base64 = (s: string) => Buffer.from(s).toString('base64');
/** A harmless write a super_admin may make with the cookie: the Temporal codec's encode (no state changes). */
const ENCODE_BODY = { payloads: [{ metadata: { encoding: base64('json/plain') }, data: base64('{"a":1}') }] };

type Credential = 'cookie' | 'bearer';
const credentialHeaders = (kind: Credential, token: string): Record<string, string> =>
  kind === 'cookie' ? { cookie: `${SESSION_COOKIE}=${token}` } : { authorization: `Bearer ${token}` };

/** What a browser sends about where a request comes from, for a page of each kind (`own`: the service's origin). */
const SOURCES: Record<string, (own: string) => Record<string, string>> = {
  'no header (curl, a script)': () => ({}),
  'Origin: own': (own) => ({ origin: own }),
  'Origin: foreign': () => ({ origin: FOREIGN }),
  'Origin: null (sandboxed frame, data: page)': () => ({ origin: 'null' }),
  'Sec-Fetch-Site: same-origin': () => ({ 'sec-fetch-site': 'same-origin' }),
  'Sec-Fetch-Site: same-site': () => ({ 'sec-fetch-site': 'same-site' }),
  'Sec-Fetch-Site: cross-site': () => ({ 'sec-fetch-site': 'cross-site' }),
  'Sec-Fetch-Site: none (typed, a bookmark)': () => ({ 'sec-fetch-site': 'none' }),
};

/** Refused: a cookie-carried write from another origin, or marked by the browser as another site's. */
const REFUSED_COOKIE_WRITES = new Set([
  'Origin: foreign',
  'Origin: null (sandboxed frame, data: page)',
  'Sec-Fetch-Site: same-site',
  'Sec-Fetch-Site: cross-site',
]);

const MATRIX = (['cookie', 'bearer'] as const).flatMap((credential) =>
  (['GET', 'POST'] as const).flatMap((method) =>
    Object.keys(SOURCES).map((source) => {
      const refused = credential === 'cookie' && method === 'POST' && REFUSED_COOKIE_WRITES.has(source);
      return [credential, method, source, refused ? 403 : 200] as const;
    }),
  ),
);

function request(api: TestApi, method: 'GET' | 'POST', headers: Record<string, string>, from = '127.0.0.1') {
  return method === 'GET'
    ? callFrom(from, `${api.url}/api/v1/dashboard/me`, 'GET', undefined, headers)
    : callFrom(from, `${api.url}/api/v1/system/temporal-codec/encode`, 'POST', ENCODE_BODY, headers);
}

describe('cross-site writes with the session cookie', () => {
  const TEMPORAL_UI = 'http://127.0.0.1:18233';
  const ctx = useTestApi({ TEMPORAL_UI_URL: TEMPORAL_UI, PUBLIC_BASE_URL: 'https://Leads.Example.test:443/' });
  const own = () => new URL(ctx.api.url).origin;

  it.each(MATRIX)('%s %s with %s: %i', async (credential, method, source, expected) => {
    const res = await request(ctx.api, method, {
      ...credentialHeaders(credential, ctx.admin),
      ...SOURCES[source](own()),
    });
    expect(res.status).toBe(expected);
    if (expected === 403) {
      expect(res.body.detail).toMatch(/^Refused a .*write with the session cookie/);
      expect(res.body.detail).toMatch(/bearer token/);
    }
  });

  it('a refused write does nothing: a foreign page can neither create a user nor log the user out', async () => {
    const cookie = credentialHeaders('cookie', ctx.admin);
    const email = 'planted@cross-site.test';
    const create = await callFrom(
      '127.0.0.1',
      `${ctx.api.url}/api/v1/dashboard/users`,
      'POST',
      {
        email,
        role: 'super_admin',
      },
      { ...cookie, origin: FOREIGN, 'sec-fetch-site': 'cross-site' },
    );
    expect(create.status).toBe(403);
    const users = await ctx.api.call('GET', `/api/v1/dashboard/users?search=${encodeURIComponent(email)}`, {
      token: ctx.admin,
    });
    expect(users.body.users).toEqual([]);

    const logout = await callFrom('127.0.0.1', `${ctx.api.url}/api/v1/auth/logout`, 'POST', undefined, {
      ...cookie,
      'sec-fetch-site': 'cross-site',
    });
    expect(logout.status).toBe(403);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: ctx.admin })).status).toBe(200);
  });

  it("the Temporal UI's codec call with the operator's cookie passes from its origin, not from a sibling", async () => {
    const cookie = credentialHeaders('cookie', ctx.admin);
    const encoded = await callFrom(
      '127.0.0.1',
      `${ctx.api.url}/api/v1/system/temporal-codec/encode`,
      'POST',
      ENCODE_BODY,
      {
        ...cookie,
      },
    );
    const decode = (origin: string) =>
      callFrom('127.0.0.1', `${ctx.api.url}/api/v1/system/temporal-codec/decode`, 'POST', encoded.body, {
        ...cookie,
        origin,
        'sec-fetch-site': 'same-site',
        'x-namespace': 'default',
      });
    const fromUi = await decode(TEMPORAL_UI);
    expect(fromUi.status).toBe(200);
    expect(fromUi.body).toEqual(ENCODE_BODY);
    expect(fromUi.headers['access-control-allow-origin']).toBe(TEMPORAL_UI);
    // Another port of the same host is another origin (the same site): refused.
    expect((await decode('http://127.0.0.1:18234')).status).toBe(403);
  });

  it('origins are compared as browsers serialise them: case and default ports do not matter', async () => {
    const cookie = credentialHeaders('cookie', ctx.admin);
    const port = new URL(ctx.api.url).port;
    // A Host header written in capitals (the browser's Origin is always lower-case).
    const upper = await request(ctx.api, 'POST', {
      ...cookie,
      host: `LOCALHOST:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect(upper.status).toBe(200);
    // PUBLIC_BASE_URL written with capitals, its default port and a path still names the browser's origin.
    expect((await request(ctx.api, 'POST', { ...cookie, origin: 'https://leads.example.test' })).status).toBe(200);
    // The same host over plain HTTP, or on another port, is another origin.
    expect((await request(ctx.api, 'POST', { ...cookie, origin: 'http://leads.example.test' })).status).toBe(403);
    expect((await request(ctx.api, 'POST', { ...cookie, origin: 'https://leads.example.test:8443' })).status).toBe(403);
    // Something that is no origin at all.
    expect((await request(ctx.api, 'POST', { ...cookie, origin: 'leads.example.test' })).status).toBe(403);
  });
});

/** The address the proxy connects to the API from; the one TRUST_PROXY names (as in test/deploy/proxy-hop.test.ts). */
const PROXY_SOURCE = '127.0.0.10';

describe('cross-site writes behind the reverse proxy (TRUST_PROXY)', () => {
  const ctx = useTestApi({ TRUST_PROXY: PROXY_SOURCE });
  let proxy: ReverseProxy;
  beforeAll(async () => {
    proxy = await startReverseProxy(ctx.api.url, PROXY_SOURCE);
  });
  afterAll(() => proxy?.stop());

  const encodeThroughProxy = (headers: Record<string, string>) =>
    callFrom('127.0.0.2', `${proxy.url}/api/v1/system/temporal-codec/encode`, 'POST', ENCODE_BODY, {
      ...credentialHeaders('cookie', ctx.admin),
      ...headers,
    });

  it("a console write from the proxy's public origin passes; one from another origin does not", async () => {
    // The proxy's public address is the console's origin (X-Forwarded-Host and -Proto carry it to the API).
    expect((await encodeThroughProxy({ origin: proxy.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await encodeThroughProxy({ origin: proxy.url })).status).toBe(200);
    expect((await encodeThroughProxy({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    // The API's own address is not the origin the browser sees behind the proxy.
    expect((await encodeThroughProxy({ origin: ctx.api.url })).status).toBe(403);
    expect((await encodeThroughProxy({ origin: FOREIGN, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await encodeThroughProxy({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('the forwarded host counts only from the trusted proxy, with its default port dropped', async () => {
    const cookie = credentialHeaders('cookie', ctx.admin);
    const forwarded = { 'x-forwarded-host': 'Leads.Example.test:443', 'x-forwarded-proto': 'https' };
    const asTheProxy = await request(
      ctx.api,
      'POST',
      { ...cookie, ...forwarded, origin: 'https://leads.example.test' },
      PROXY_SOURCE,
    );
    expect(asTheProxy.status).toBe(200);
    // A client reaching the API directly cannot make another origin its own by claiming it was forwarded.
    const forged = await request(
      ctx.api,
      'POST',
      { ...cookie, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', origin: FOREIGN },
      '127.0.0.3',
    );
    expect(forged.status).toBe(403);
  });
});

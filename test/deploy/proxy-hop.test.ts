import { createClient, useTestApi } from '../support/harness';
import { callFrom, startReverseProxy, type ReverseProxy } from '../support/reverse-proxy';

/** The address the proxy connects to the API from; the one TRUST_PROXY names (docker-compose.yml: PROXY_ADDRESS). */
const PROXY_SOURCE = '127.0.0.10';

/**
 * The deployment's topology, run: the API behind a real reverse proxy (Debian's nginx) on loopback, trusting
 * only the proxy's own address. Clients are told apart by the loopback address they connect from.
 */
describe('the API behind one proxy hop', () => {
  const ctx = useTestApi({
    TRUST_PROXY: PROXY_SOURCE,
    LOGIN_ADDRESS_MAX_ACCOUNTS: '2',
    ACCESS_REQUEST_RATE_PER_HOUR: '2',
  });
  let proxy: ReverseProxy;
  beforeAll(async () => {
    proxy = await startReverseProxy(ctx.api.url, PROXY_SOURCE);
  });
  afterAll(() => proxy?.stop());

  const guess = (from: string, base: string, account: string, headers: Record<string, string> = {}) =>
    callFrom(
      from,
      `${base}/api/v1/auth/login`,
      'POST',
      { email: `${account}@proxy-hop.test`, password: 'wrong-password' },
      headers,
    ).then((r) => r.status);

  it('two clients behind the proxy are throttled apart, and a forwarded address they send changes nothing', async () => {
    // 127.0.0.2 guesses at three accounts: the third is past the per-address guard.
    expect([
      await guess('127.0.0.2', proxy.url, 'a1'),
      await guess('127.0.0.2', proxy.url, 'a2'),
      await guess('127.0.0.2', proxy.url, 'a3'),
    ]).toEqual([401, 401, 429]);
    // 127.0.0.3, behind the same proxy, is its own client.
    expect(await guess('127.0.0.3', proxy.url, 'b1')).toBe(401);
    // 127.0.0.2 claiming to be someone else: nginx appends the address it saw, and only that one is believed.
    expect(await guess('127.0.0.2', proxy.url, 'a4', { 'x-forwarded-for': '127.0.0.9' })).toBe(429);
    expect(await guess('127.0.0.9', proxy.url, 'c1')).toBe(401); // nothing was counted against 127.0.0.9
  });

  it('access requests are counted per client behind the proxy', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Proxy Hop');
    const request = (from: string) =>
      callFrom(from, `${proxy.url}/api/v1/auth/pat/request`, 'POST', {
        client_id: client.client_id,
        owner_email: 'dev@proxy-hop.test',
        project_name: 'behind-nginx',
        requested_scopes: ['jobs:read'],
      }).then((r) => r.status);
    expect([await request('127.0.0.2'), await request('127.0.0.2'), await request('127.0.0.2')]).toEqual([
      200, 200, 429,
    ]);
    expect(await request('127.0.0.3')).toBe(200);
  });

  it('a client reaching the API directly cannot choose its address with X-Forwarded-For', async () => {
    const direct = (account: string, forwarded: string) =>
      guess('127.0.0.4', ctx.api.url, account, { 'x-forwarded-for': forwarded });
    // Each guess names another address; all of them count against 127.0.0.4 itself.
    expect([await direct('d1', '127.0.0.5'), await direct('d2', '127.0.0.6'), await direct('d3', '127.0.0.7')]).toEqual(
      [401, 401, 429],
    );
    // None of the named addresses was charged: 127.0.0.5 still has both of its guesses.
    expect([await guess('127.0.0.5', proxy.url, 'e1'), await guess('127.0.0.5', proxy.url, 'e2')]).toEqual([401, 401]);
  });
});

import { createClient, useTestApi } from '../support/harness';

/**
 * Every per-address limit counts the caller's address as src/lib/http/client-address.ts reads it: an IPv4 address
 * whole, an IPv6 address by its /64 (a host is given a whole /64 and may send from any of its 2^64 addresses), and
 * an IPv4-mapped IPv6 address as the IPv4 address it is. The test's requests come from loopback, which
 * TRUST_PROXY=loopback believes, so X-Forwarded-For names the address a request is counted against.
 */
describe('per-address limits and IPv6 callers', () => {
  const ctx = useTestApi({ TRUST_PROXY: 'loopback', ACCESS_REQUEST_RATE_PER_HOUR: '2' });

  it('count an IPv6 caller by its /64 and an IPv4-mapped caller as its IPv4 address', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Address Prefix');
    const request = (from: string) =>
      ctx.api
        .call('POST', '/api/v1/auth/pat/request', {
          body: {
            client_id: client.client_id,
            owner_email: 'dev@address-prefix.test',
            project_name: 'prefix',
            requested_scopes: ['jobs:read'],
          },
          headers: { 'x-forwarded-for': from },
        })
        .then((r) => r.status);

    // Two addresses of one /64, then a third: the /64 has had its two requests of the hour.
    expect([await request('2001:db8:a:b::1'), await request('2001:db8:a:b:ffff:1:2:3')]).toEqual([200, 200]);
    expect(await request('2001:db8:a:b::2')).toBe(429);
    // The neighbouring /64 (the fourth group differs) is another caller with its own two.
    expect([await request('2001:db8:a:c::1'), await request('2001:db8:a:c::1')]).toEqual([200, 200]);

    // An IPv4 caller, whether the proxy wrote its address as IPv4 or IPv4-mapped IPv6, is one caller.
    expect([await request('203.0.113.5'), await request('::ffff:203.0.113.5')]).toEqual([200, 200]);
    expect(await request('::ffff:cb00:7105')).toBe(429); // 203.0.113.5 again, in hexadecimal
    expect(await request('203.0.113.6')).toBe(200);
  });
});

import { createClient, useTestApi } from '../support/harness';

/**
 * Every request passes the gates in one order: credentials (401), role and scope (403), then parameters and body
 * (422/400).
 */
describe("the gates run in the contract's order", () => {
  const ctx = useTestApi();

  it.each([
    ['PATCH', '/api/v1/brands/1', {}],
    ['POST', '/api/v1/dashboard/users', {}],
    ['POST', '/api/v1/dashboard/users/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d/brands', {}],
    ['POST', '/api/v1/dashboard/content/posts', { title: 42 }],
    ['GET', '/api/v1/dashboard/client/jobs?page=0', undefined],
  ])('%s %s without credentials is 401, whatever the body', async (method, path, body) => {
    const res = await ctx.api.call(method, path, { body });
    expect({ status: res.status, detail: typeof res.body.detail }).toEqual({ status: 401, detail: 'string' });
  });

  it('a body that does not parse, or is too large, is still 401 without credentials', async () => {
    const headers = { 'content-type': 'application/json' };
    const malformed = await ctx.api.call('POST', '/api/v1/dashboard/users', { rawBody: '{"email":', headers });
    expect(malformed.status).toBe(401);
    const big = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      rawBody: JSON.stringify({ email: 'x'.repeat(2_000_000) }),
      headers,
    });
    expect(big.status).toBe(401);
  });

  it('a caller without the role is 403 before the body is looked at; with it, a bad body is 422', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Gates');
    expect((await ctx.api.call('POST', '/api/v1/dashboard/users', { token: client.triple, body: {} })).status).toBe(
      403,
    );
    expect(
      (await ctx.api.call('POST', '/api/v1/dashboard/users', { token: client.triple, rawBody: '{nope' })).status,
    ).toBe(403);
    const invalid = await ctx.api.call('POST', '/api/v1/dashboard/users', { token: ctx.admin, body: {} });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.length).toBeGreaterThan(0);
  });

  it('a signup read without a signup token, or with an empty one, is 401 before its parameters are read', async () => {
    for (const path of [
      '/api/v1/signup/resolve',
      '/api/v1/signup/resolve?token=',
      '/api/v1/signup/check-name?token=&name=',
      '/api/v1/signup/check-name?name=-bad',
    ]) {
      const res = await ctx.api.call('GET', path);
      expect({ path, status: res.status, detail: res.body.detail }).toEqual({
        path,
        status: 401,
        detail: 'Missing signup token',
      });
    }
    // A token that is present passes the gate: its handler verifies it.
    const presented = await ctx.api.call('GET', '/api/v1/signup/resolve?token=abc');
    expect(presented.body.detail).not.toBe('Missing signup token');
  });

  it('routes a maps relay sub-path of several segments to its operation', async () => {
    for (const sub of ['geocode/json', 'place/details/json', 'geocode%2Fjson']) {
      const anonymous = await ctx.api.call('POST', `/api/v1/agent/proxy/maps/${sub}`, { body: { params: {} } });
      expect({ sub, status: anonymous.status }).toEqual({ sub, status: 401 });
      const res = await ctx.api.call('POST', `/api/v1/agent/proxy/maps/${sub}`, {
        token: ctx.admin,
        body: { params: {} },
      });
      expect({ sub, detail: res.body.detail }).not.toEqual({ sub, detail: 'No such route' });
      expect(res.status).not.toBe(404);
    }
  });
});

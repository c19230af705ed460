import { createClient, useTestApi } from '../support/harness';
import { startSecondApi } from '../support/second-api';
import { approvedToken, brandsFor } from '../agents/agent-helpers';

/**
 * Resolved credentials are cached per API process (src/auth/token-cache.ts). Each change that takes
 * access away must hold at once on this process and on another one that has the credential cached.
 */
describe('cached credentials stop working at once when access is taken away', () => {
  const ctx = useTestApi();
  let second: { url: string; stop(): void };
  beforeAll(async () => {
    second = await startSecondApi(ctx.api);
  });
  afterAll(() => second?.stop());

  /** GET /dashboard/me on both processes: [this one, the other]. */
  const meOnBoth = (token: string) =>
    Promise.all([
      ctx.api.call('GET', '/api/v1/dashboard/me', { token }).then((r) => r.status),
      fetch(`${second.url}/api/v1/dashboard/me`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
      ),
    ]);

  /** A user of a fresh client, logged in, with its session cached on both processes. */
  async function cachedUserSession(name: string) {
    const client = await createClient(ctx.api, ctx.admin, name);
    const email = `${name.toLowerCase().replace(/\W+/g, '-')}@cache.test`;
    const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'cache-password-123' },
    });
    expect(created.status).toBe(201);
    const session = await ctx.api.login(email, 'cache-password-123');
    expect(await meOnBoth(session)).toEqual([200, 200]);
    expect(await meOnBoth(session)).toEqual([200, 200]); // now answered from the caches
    return { client, session, userId: created.body.user_id as string };
  }

  it('a user deactivated, a user removed, a logout', async () => {
    const deactivated = await cachedUserSession('Deactivated User');
    const patched = await ctx.api.call('PATCH', `/api/v1/dashboard/users/${deactivated.userId}`, {
      token: ctx.admin,
      body: { is_active: false },
    });
    expect(patched.status).toBe(200);
    expect(await meOnBoth(deactivated.session)).toEqual([401, 401]);

    const removed = await cachedUserSession('Removed User');
    expect(
      (await ctx.api.call('DELETE', `/api/v1/dashboard/users/${removed.userId}`, { token: ctx.admin })).status,
    ).toBe(200);
    expect(await meOnBoth(removed.session)).toEqual([401, 401]);

    const loggedOut = await cachedUserSession('Logged Out User');
    expect((await ctx.api.call('POST', '/api/v1/auth/logout', { token: loggedOut.session })).status).toBe(200);
    expect(await meOnBoth(loggedOut.session)).toEqual([401, 401]);
  });

  it("a user's role changed is seen at once", async () => {
    const { session, userId } = await cachedUserSession('Promoted User');
    expect(
      (
        await ctx.api.call('PATCH', `/api/v1/dashboard/users/${userId}`, {
          token: ctx.admin,
          body: { role: 'brand_admin' },
        })
      ).status,
    ).toBe(200);
    const [here, there] = await Promise.all([
      ctx.api.call('GET', '/api/v1/dashboard/me', { token: session }).then((r) => r.body.role),
      fetch(`${second.url}/api/v1/dashboard/me`, { headers: { authorization: `Bearer ${session}` } })
        .then((r) => r.json() as Promise<{ role: string }>)
        .then((b) => b.role),
    ]);
    expect([here, there]).toEqual(['brand_admin', 'brand_admin']);
  });

  it("a client deactivated, and a client's secret rotated", async () => {
    const deactivated = await createClient(ctx.api, ctx.admin, 'Deactivated Client');
    expect(await meOnBoth(deactivated.triple)).toEqual([200, 200]);
    const off = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${deactivated.client_id}`, {
      token: ctx.admin,
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    expect(await meOnBoth(deactivated.triple)).toEqual([401, 401]);

    const rotated = await createClient(ctx.api, ctx.admin, 'Rotated Client');
    expect(await meOnBoth(rotated.triple)).toEqual([200, 200]);
    expect(
      (await ctx.api.call('POST', '/api/v1/dashboard/credentials/regenerate', { token: rotated.triple })).status,
    ).toBe(200);
    expect(await meOnBoth(rotated.triple)).toEqual([401, 401]);
  });

  it("a client deactivated stops its users' sessions and its agent tokens too, on every process", async () => {
    const { client, session } = await cachedUserSession('Deactivated Tenant');
    await brandsFor(client.client_id, [931]);
    const { token } = await approvedToken(ctx.api, ctx.admin, client);
    const tokenStatusOnBoth = () =>
      Promise.all([
        ctx.api.call('GET', '/api/v1/auth/pat/status', { token }).then((r) => r.status),
        fetch(`${second.url}/api/v1/auth/pat/status`, { headers: { authorization: `Bearer ${token}` } }).then(
          (r) => r.status,
        ),
      ]);
    expect(await tokenStatusOnBoth()).toEqual([200, 200]);
    expect(await tokenStatusOnBoth()).toEqual([200, 200]); // cached on both

    const off = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${client.client_id}`, {
      token: ctx.admin,
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    expect(await meOnBoth(session)).toEqual([401, 401]);
    expect(await tokenStatusOnBoth()).toEqual([401, 401]);
    expect(await meOnBoth(client.triple)).toEqual([401, 401]);

    const on = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${client.client_id}`, {
      token: ctx.admin,
      body: { is_active: true },
    });
    expect(on.status).toBe(200);
    expect(await meOnBoth(session)).toEqual([200, 200]);
    expect(await tokenStatusOnBoth()).toEqual([200, 200]);
  });
});

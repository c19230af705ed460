import { createClient, useTestApi } from '../support/harness';

/**
 * Deactivating a user ends their sessions (PATCH is_active false, updateDashboardUser): refused at once, and still
 * ended when the user is made active again, who then signs in anew.
 */
describe('deactivating a dashboard user ends their sessions', () => {
  const ctx = useTestApi();

  it('refuses the session at once and does not bring it back on reactivation', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Deactivation Co');
    const email = 'leaver@deactivation.test';
    const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'leaver-password-1' },
    });
    expect(created.status).toBe(201);
    const userId = created.body.user_id as string;
    const session = await ctx.api.login(email, 'leaver-password-1');
    const me = () => ctx.api.call('GET', '/api/v1/dashboard/me', { token: session }).then((r) => r.status);
    expect(await me()).toBe(200);

    const off = await ctx.api.call('PATCH', `/api/v1/dashboard/users/${userId}`, {
      token: ctx.admin,
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.is_active).toBe(false);
    expect(await me()).toBe(401);

    const on = await ctx.api.call('PATCH', `/api/v1/dashboard/users/${userId}`, {
      token: ctx.admin,
      body: { is_active: true },
    });
    expect(on.status).toBe(200);
    expect(await me()).toBe(401);
    // The user is back: a new sign-in works.
    const again = await ctx.api.login(email, 'leaver-password-1');
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: again })).status).toBe(200);
  });

  it('a user removed keeps no session either', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Removal Co');
    const email = 'removed@deactivation.test';
    const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'removed-password-1' },
    });
    const userId = created.body.user_id as string;
    const session = await ctx.api.login(email, 'removed-password-1');
    expect((await ctx.api.call('DELETE', `/api/v1/dashboard/users/${userId}`, { token: ctx.admin })).status).toBe(200);
    // Even with the login made active again, the removed user's session stays ended.
    expect(
      (
        await ctx.api.call('PATCH', `/api/v1/dashboard/users/${userId}`, {
          token: ctx.admin,
          body: { is_active: true },
        })
      ).status,
    ).toBe(200);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: session })).status).toBe(401);
  });
});

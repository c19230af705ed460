import { UserModel } from '../../src/users/user.model';
import { ensureSuperAdmin } from '../../src/users/bootstrap';
import { ADMIN, createClient, eventually, useTestApi } from '../support/harness';

describe('login, sessions and credentials', () => {
  const ctx = useTestApi();

  it('logs in with a session that works as bearer token and as cookie', async () => {
    const res = await ctx.api.call('POST', '/api/v1/auth/login', { body: ADMIN });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'bearer',
      user: { email: ADMIN.email, role: 'super_admin', client_id: null },
    });
    expect(res.body.access_token).toMatch(/^lss_/);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/lead_session=lss_/);
    expect(cookie).toMatch(/HttpOnly/i);

    const byBearer = await ctx.api.call('GET', '/api/v1/dashboard/me', { token: res.body.access_token });
    expect(byBearer.body).toMatchObject({ kind: 'user', role: 'super_admin', email: ADMIN.email });
    const byCookie = await ctx.api.call('GET', '/api/v1/dashboard/me', { headers: { cookie: cookie.split(';')[0] } });
    expect(byCookie.status).toBe(200);
    expect(byCookie.body.user_id).toBe(byBearer.body.user_id);
  });

  it('rejects a wrong password with 401 {detail}', async () => {
    const res = await ctx.api.call('POST', '/api/v1/auth/login', {
      body: { email: ADMIN.email, password: 'wrong-password' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid e-mail or password' });
  });

  it('ends the session on logout', async () => {
    const token = await ctx.api.login();
    expect((await ctx.api.call('POST', '/api/v1/auth/logout', { token })).body).toEqual({ logged_out: true });
    const after = await ctx.api.call('GET', '/api/v1/dashboard/me', { token });
    expect(after.status).toBe(401);
  });

  it('answers 401 without or with bad credentials, 403 without the role', async () => {
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me')).status).toBe(401);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: 'lss_not-a-session' })).status).toBe(401);
    const client = await createClient(ctx.api, ctx.admin, 'Tenant One');
    const badSecret = `${client.client_id}:${client.api_key}:wrong`;
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: badSecret })).status).toBe(401);

    const me = await ctx.api.call('GET', '/api/v1/dashboard/me', { token: client.triple });
    expect(me.body).toMatchObject({ kind: 'client', role: 'client_user', client_id: client.client_id });
    const forbidden = await ctx.api.call('GET', '/api/v1/dashboard/admin/clients', { token: client.triple });
    expect(forbidden.status).toBe(403);
    expect(typeof forbidden.body.detail).toBe('string');
  });

  it('rotates client credentials: the new triple works and the old one stops', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Rotating Co');
    const res = await ctx.api.call('POST', '/api/v1/dashboard/credentials/regenerate', { token: client.triple });
    expect(res.status).toBe(200);
    const fresh = `${res.body.client_id}:${res.body.api_key}:${res.body.api_secret}`;
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: fresh })).status).toBe(200);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: client.triple })).status).toBe(401);
    expect((await ctx.api.call('POST', '/api/v1/dashboard/credentials/regenerate', { token: ctx.admin })).status).toBe(
      403,
    );
  });

  it('keeps content domains unique across clients', async () => {
    await createClient(ctx.api, ctx.admin, 'Domain One', ['one.example']);
    const clash = await ctx.api.call('POST', '/api/v1/dashboard/admin/clients', {
      token: ctx.admin,
      body: { name: 'Domain Two', content_domains: ['ONE.example'], admin_email: 'two@example.test' },
    });
    expect(clash.status).toBe(409);
    expect((await ctx.api.rt.modules.clients.service.byContentDomain('one.example'))?.name).toBe('Domain One');
  });

  it('answers 404 with {detail} for an unknown route or record', async () => {
    const route = await ctx.api.call('GET', '/api/v1/no-such-thing', { token: ctx.admin });
    expect(route.status).toBe(404);
    expect(typeof route.body.detail).toBe('string');
    const record = await ctx.api.call('PATCH', '/api/v1/dashboard/admin/clients/00000000-0000-4000-8000-000000000000', {
      token: ctx.admin,
      body: { name: 'x' },
    });
    expect(record.status).toBe(404);
  });

  it('makes the bootstrap ctx.admin idempotent', async () => {
    expect(await ensureSuperAdmin(ADMIN.email, ADMIN.password)).toBe('unchanged');
    expect(await UserModel.countDocuments({ email: ADMIN.email })).toBe(1);
    expect(await ensureSuperAdmin(ADMIN.email.toUpperCase(), 'another-password-1')).toBe('updated');
    expect(await UserModel.countDocuments({ email: ADMIN.email })).toBe(1);
    expect(
      (
        await ctx.api.call('POST', '/api/v1/auth/login', {
          body: { email: ADMIN.email, password: 'another-password-1' },
        })
      ).status,
    ).toBe(200);
    await ensureSuperAdmin(ADMIN.email, ADMIN.password);
  });
});

describe('session expiry', () => {
  // Time is the subject. A lifetime of 3 s leaves a loaded machine room for the first read inside it.
  const ctx = useTestApi({ SESSION_TTL_SECONDS: '3' });

  it('rejects a session after its lifetime, and not before', async () => {
    const before = Date.now();
    const token = await ctx.api.login();
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token })).status).toBe(200);
    const me = () => ctx.api.call('GET', '/api/v1/dashboard/me', { token });
    await eventually(async () => ((await me()).status === 401 ? true : undefined), 20_000, 100);
    expect(Date.now() - before).toBeGreaterThanOrEqual(3000); // a lower bound: a slow machine only adds to it
  });
});

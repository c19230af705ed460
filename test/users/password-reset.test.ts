import { createClient, eventually, useTestApi } from '../support/harness';

/** A workflow started through the API and completed by the worker: the reset e-mail's delivery. */
describe('password reset through a durable delivery workflow', () => {
  const ctx = useTestApi();

  it('e-mails a reset link that sets a new password once', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Reset Co');
    const email = 'editor@reset.test';
    const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'first-password-1' },
    });
    expect(created.status).toBe(201);

    const trigger = await ctx.api.call('POST', `/api/v1/dashboard/users/${created.body.user_id}/trigger-reset`, {
      token: ctx.admin,
    });
    expect(trigger.status).toBe(202);

    // The worker runs the delivery workflow to completion; Temporal records it.
    const handle = ctx.api.rt.engines.temporal.workflow.getHandle(trigger.body.delivery_id);
    await expect(handle.result()).resolves.toEqual({ delivered: true });
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    const outbox = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: ctx.admin,
      });
      return res.body.messages.length ? res.body.messages : undefined;
    });
    const link = outbox[0].links.find((l: string) => l.includes('/reset-password?token='));
    expect(link).toBeDefined();
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const token = new URL(link).searchParams.get('token')!;

    const reset = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      body: { token, new_password: 'second-password-2' },
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ password_reset: true });
    expect(
      (await ctx.api.call('POST', '/api/v1/auth/login', { body: { email, password: 'first-password-1' } })).status,
    ).toBe(401);
    expect(
      (await ctx.api.call('POST', '/api/v1/auth/login', { body: { email, password: 'second-password-2' } })).status,
    ).toBe(200);

    const again = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      body: { token, new_password: 'third-password-3' },
    });
    expect(again.status).toBe(401);
  });

  it('lets only one of many concurrent submissions of one reset link succeed', async () => {
    const email = 'racer@reset.test';
    const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'super_admin' },
    });
    await ctx.api.call('POST', `/api/v1/dashboard/users/${user.body.user_id}/trigger-reset`, { token: ctx.admin });
    const [message] = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: ctx.admin,
      });
      return res.body.messages.length ? res.body.messages : undefined;
    });
    const token = new URL(message.links[0]).searchParams.get('token')!;
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ctx.api.call('POST', '/api/v1/auth/password-reset', { body: { token, new_password: `racing-password-${i}` } }),
      ),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual([200, ...Array(11).fill(401)]);
  });

  it('generates 16-character passwords with every character class', async () => {
    const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email: 'gen@reset.test', role: 'super_admin' },
    });
    const res = await ctx.api.call('GET', `/api/v1/dashboard/users/${user.body.user_id}/generate-password`, {
      token: ctx.admin,
    });
    expect(res.body.password).toHaveLength(16);
    expect(res.body.password).toMatch(/[A-Z]/);
    expect(res.body.password).toMatch(/[a-z]/);
    expect(res.body.password).toMatch(/\d/);
    expect(res.body.password).toMatch(/[^A-Z0-9]/i);
  });
});

describe('dashboard user administration', () => {
  const ctx = useTestApi();

  it('lists users page by page, filtered by role and e-mail search', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Listing Co');
    for (const n of [1, 2, 3]) {
      await ctx.api.call('POST', '/api/v1/dashboard/users', {
        token: ctx.admin,
        body: { email: `u${n}@list.test`, role: 'client_user', client_id: client.client_id },
      });
    }
    const page = await ctx.api.call(
      'GET',
      '/api/v1/dashboard/users?role=client_user&search=list.test&page=2&page_size=2',
      { token: ctx.admin },
    );
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(page.body.users).toHaveLength(1);
    const all = await ctx.api.call('GET', '/api/v1/dashboard/users?search=.test', { token: ctx.admin });
    expect(all.body.users.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining(['u1@list.test', 'root@example.test']),
    );
  });

  it('deactivates a removed user, who can no longer log in', async () => {
    const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email: 'gone@list.test', role: 'super_admin', password: 'gone-password-1' },
    });
    expect(
      (await ctx.api.call('DELETE', `/api/v1/dashboard/users/${user.body.user_id}`, { token: ctx.admin })).body,
    ).toEqual({ user_id: user.body.user_id, removed: true });
    expect(
      (
        await ctx.api.call('POST', '/api/v1/auth/login', {
          body: { email: 'gone@list.test', password: 'gone-password-1' },
        })
      ).status,
    ).toBe(401);
  });
});

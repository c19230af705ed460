import { deliveriesSettled } from '../support/deliveries';
import { createClient, eventually, useTestApi, type TestApi } from '../support/harness';

const PASSWORD = 'forgotten-password-1';

/** "Forgot your password?" from a client address of the test's choosing (TRUST_PROXY believes loopback's hop). */
const ask = (api: TestApi, email: string, from: string) =>
  api.call('POST', '/api/v1/auth/password-reset/request', { body: { email }, headers: { 'x-forwarded-for': from } });

/** The e-mails the dev outbox holds for an address. */
async function mailTo(api: TestApi, admin: string, email: string): Promise<{ subject: string; links: string[] }[]> {
  const res = await api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
    token: admin,
  });
  expect(res.status).toBe(200);
  return res.body.messages;
}

describe('"forgot your password?" (requestPasswordReset)', () => {
  const ctx = useTestApi({ TRUST_PROXY: 'loopback' });

  async function userWithPassword(name: string) {
    const client = await createClient(ctx.api, ctx.admin, name);
    const email = `${name.toLowerCase().replace(/\W+/g, '-')}@forgot.test`;
    const res = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: PASSWORD },
    });
    expect(res.status).toBe(201);
    return email;
  }

  it('e-mails a known account the reset link, which sets the password through the reset operation', async () => {
    const email = await userWithPassword('Known Account');
    // The e-mail as typed: the account is found whatever its case.
    const asked = await ask(ctx.api, email.toUpperCase(), '198.51.100.1');
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ accepted: true });

    const [message] = await eventually(async () => {
      const messages = await mailTo(ctx.api, ctx.admin, email);
      return messages.length ? messages : undefined;
    });
    expect(message.subject).toBe('Reset your dashboard password');
    const link = message.links.find((l) => l.includes('/reset-password?token='))!;
    expect(new URL(link).pathname).toBe('/reset-password');
    const token = new URL(link).searchParams.get('token')!;
    expect(token).toMatch(/^lrt_/);

    const reset = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      body: { token, new_password: 'remembered-password-2' },
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ password_reset: true });
    const login = (password: string) =>
      ctx.api.call('POST', '/api/v1/auth/login', { body: { email, password } }).then((r) => r.status);
    expect(await login(PASSWORD)).toBe(401);
    expect(await login('remembered-password-2')).toBe(200);
  });

  it('answers an unknown e-mail with the same 202 and sends nothing', async () => {
    const known = await userWithPassword('Same Answer');
    const unknown = 'nobody-here@forgot.test';
    const [forKnown, forUnknown] = [
      await ask(ctx.api, known, '198.51.100.2'),
      await ask(ctx.api, unknown, '198.51.100.2'),
    ];
    expect(forUnknown.status).toBe(forKnown.status);
    expect(forUnknown.body).toEqual(forKnown.body);
    expect(forUnknown.headers.get('content-type')).toBe(forKnown.headers.get('content-type'));
    expect(forUnknown.headers.get('content-length')).toBe(forKnown.headers.get('content-length'));

    // The known account's e-mail arrives; by then every delivery started has ended, and none was for the other.
    await eventually(async () => ((await mailTo(ctx.api, ctx.admin, known)).length ? true : undefined));
    await deliveriesSettled(ctx.api);
    expect(await mailTo(ctx.api, ctx.admin, unknown)).toEqual([]);
  });

  it('refuses the 4th request for one account in the hour (429, Retry-After) and sends no 4th e-mail', async () => {
    const email = await userWithPassword('Three Mails');
    // From four addresses: the account's allowance holds whoever asks.
    for (const n of [1, 2, 3]) expect((await ask(ctx.api, email, `203.0.113.${n}`)).status).toBe(202);
    const fourth = await ask(ctx.api, email, '203.0.113.4');
    expect(fourth.status).toBe(429);
    const retryAfter = Number(fourth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(fourth.body.detail).toMatch(/account/);

    await eventually(async () => ((await mailTo(ctx.api, ctx.admin, email)).length >= 3 ? true : undefined));
    await deliveriesSettled(ctx.api);
    expect(await mailTo(ctx.api, ctx.admin, email)).toHaveLength(3);

    // An e-mail nobody has is throttled the same way, so the 429 tells nothing either.
    const unknown = 'ghost@forgot.test';
    for (const n of [1, 2, 3]) expect((await ask(ctx.api, unknown, `203.0.113.${10 + n}`)).status).toBe(202);
    const ghost = await ask(ctx.api, unknown, '203.0.113.14');
    expect(ghost.status).toBe(429);
    expect(ghost.headers.get('retry-after')).toBeTruthy();
  });

  it('bounds the requests from one client address (10 an hour), known account or not', async () => {
    const email = await userWithPassword('Busy Address');
    const from = '192.0.2.77';
    for (let n = 0; n < 10; n++) expect((await ask(ctx.api, `stranger-${n}@forgot.test`, from)).status).toBe(202);
    const eleventh = await ask(ctx.api, email, from);
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(eleventh.body.detail).toMatch(/address/);

    // The refusal used none of the account's allowance, and another address still gets the account its e-mail.
    expect((await ask(ctx.api, email, '192.0.2.78')).status).toBe(202);
    await eventually(async () => ((await mailTo(ctx.api, ctx.admin, email)).length ? true : undefined));
    await deliveriesSettled(ctx.api);
    expect(await mailTo(ctx.api, ctx.admin, email)).toHaveLength(1);
  });

  it('refuses a body that is not an e-mail before counting anything', async () => {
    const bad = await ctx.api.call('POST', '/api/v1/auth/password-reset/request', {
      body: { email: 'not-an-address' },
    });
    expect(bad.status).toBe(422);
    const extra = await ctx.api.call('POST', '/api/v1/auth/password-reset/request', {
      body: { email: 'a@forgot.test', role: 'super_admin' },
    });
    expect(extra.status).toBe(422);
  });
});

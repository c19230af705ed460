import { SESSION_COOKIE } from '../../src/auth/auth.service';
import { DEVICE_COOKIE } from '../../src/auth/login-devices';
import { openStream } from '../events/sse-client';
import { deliveriesSettled } from '../support/deliveries';
import { ADMIN, createClient, eventually, useTestApi } from '../support/harness';
import { capturedLogs } from '../support/log-capture';

const PASSWORD = 'console-password-123';
const NEW_PASSWORD = 'console-password-456';
const STREAM = '/api/v1/events/stream';

/** The value a Set-Cookie of the answer gives `name`. */
const setCookie = (headers: Headers, name: string) =>
  headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/**
 * A console user's whole visit, with the service logging at debug level: nothing it logs holds a session token
 * (`lss_`), a password, a Cookie header's value or a reset token, whichever way the credential travelled.
 */
describe('no token, password or cookie reaches the log', () => {
  const { lines, destination } = capturedLogs();
  const ctx = useTestApi({ LOG_LEVEL: 'debug' }, { logDestination: destination });

  it('through sign-in, cookie and bearer calls, event streams, a refused write, a reset and sign-out', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Logged Console');
    const email = 'visitor@logged-console.test';
    expect(
      (
        await ctx.api.call('POST', '/api/v1/dashboard/users', {
          token: ctx.admin,
          body: { email, role: 'client_user', client_id: client.client_id, password: PASSWORD },
        })
      ).status,
    ).toBe(201);
    const own = new URL(ctx.api.url).origin;
    const browser = { origin: own, 'sec-fetch-site': 'same-origin' };

    // A mistyped password, then the sign-in the console makes (same origin, JSON).
    expect(
      (await ctx.api.call('POST', '/api/v1/auth/login', { body: { email, password: 'mistyped-pass-1' } })).status,
    ).toBe(401);
    const login = await ctx.api.call('POST', '/api/v1/auth/login', {
      body: { email, password: PASSWORD },
      headers: browser,
    });
    expect(login.status).toBe(200);
    const session: string = login.body.access_token;
    expect(session).toMatch(/^lss_/);
    expect(setCookie(login.headers, SESSION_COOKIE)).toBe(session);
    const device = setCookie(login.headers, DEVICE_COOKIE)!;
    expect(device).toBeTruthy();
    const cookieHeader = `${SESSION_COOKIE}=${session}; ${DEVICE_COOKIE}=${device}; theme=dark`;
    const cookie = { cookie: cookieHeader, ...browser };

    // Reads and writes with the cookie, as the console makes them.
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { headers: cookie })).status).toBe(200);
    const author = await ctx.api.call('POST', '/api/v1/dashboard/content/authors', {
      headers: cookie,
      body: { full_name: 'Ada Logged' },
    });
    expect(author.status).toBe(201);
    // A write another site made the browser send: refused, and logged as a refusal.
    const refused = await ctx.api.call('POST', '/api/v1/dashboard/content/authors', {
      headers: { cookie: cookieHeader, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: { full_name: 'Planted' },
    });
    expect(refused.status).toBe(403);
    // The same session as a bearer token (the CLI, curl), and an unknown token.
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: session })).status).toBe(200);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { token: `${session}x` })).status).toBe(401);

    // The event stream: with the cookie (the console), then with the token in the query (a client that can
    // neither send a header nor a cookie).
    for (const [url, headers] of [
      [`${ctx.api.url}${STREAM}`, { cookie: cookieHeader }],
      [`${ctx.api.url}${STREAM}?token=${encodeURIComponent(session)}`, {}],
    ] as const) {
      const stream = await openStream(url, headers);
      expect(stream.status).toBe(200);
      await stream.next((f) => f.event === 'connected');
      stream.close();
      await stream.ended;
    }

    // "Forgot your password?", the e-mailed link's page and the reset it makes.
    expect(
      (await ctx.api.call('POST', '/api/v1/auth/password-reset/request', { body: { email }, headers: browser })).status,
    ).toBe(202);
    const [mail] = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: ctx.admin,
      });
      return res.body.messages.length ? (res.body.messages as { links: string[] }[]) : undefined;
    });
    const link = mail.links.find((l) => l.includes('/reset-password?token='))!;
    const resetToken = new URL(link).searchParams.get('token')!;
    expect((await fetch(link)).status).toBe(200);

    // Sign-out with the cookie; the cookie is then refused.
    expect((await ctx.api.call('POST', '/api/v1/auth/logout', { headers: cookie })).status).toBe(200);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/me', { headers: cookie })).status).toBe(401);
    const reset = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      headers: browser,
      body: { token: resetToken, new_password: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    await deliveriesSettled(ctx.api);

    // Every request above was logged (at debug level: the access lines and whatever else the service says).
    await eventually(async () =>
      lines.some((l) => (l.req as { url?: string })?.url === '/api/v1/auth/password-reset') ? true : undefined,
    );
    const text = JSON.stringify(lines);
    for (const url of ['/api/v1/auth/login', '/api/v1/auth/logout', STREAM, '/api/v1/dashboard/content/authors'])
      expect(text).toContain(url);
    // The URLs that carried a token were logged, with the token's value redacted.
    expect(text).toContain(`${STREAM}?token=[redacted]`);
    expect(text).toContain('/reset-password?token=[redacted]');
    expect(ctx.api.config.LOG_LEVEL).toBe('debug'); // whatever the service says at debug level was captured too

    expect(text).not.toMatch(/lss_[\w-]{8}/);
    for (const secret of [session, ctx.admin, device, resetToken, cookieHeader]) expect(text).not.toContain(secret);
    for (const password of [PASSWORD, NEW_PASSWORD, 'mistyped-pass-1', ADMIN.password])
      expect(text).not.toContain(password);
  });
});

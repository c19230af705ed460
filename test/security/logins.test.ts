import fs from 'node:fs';
import { randomBytes, scryptSync } from 'node:crypto';
import { UserModel } from '../../src/users/user.model';
import { takePeakPasswordHashes } from '../../src/lib/crypto';
import { createClient, eventually, useTestApi, type TestApi } from '../support/harness';
import { fakeClock } from '../support/fake-clock';

const PASSWORD = 'tenant-password-123';

/** A client_user of a fresh client, with a password. */
async function userOf(api: TestApi, admin: string, name: string) {
  const client = await createClient(api, admin, name);
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}@logins.test`;
  const res = await api.call('POST', '/api/v1/dashboard/users', {
    token: admin,
    body: { email, role: 'client_user', client_id: client.client_id, password: PASSWORD },
  });
  expect(res.status).toBe(201);
  return { client, email, userId: res.body.user_id as string };
}

const login = (api: TestApi, email: string, password: string, from?: string) =>
  api.call('POST', '/api/v1/auth/login', {
    body: { email, password },
    headers: from ? { 'x-forwarded-for': from } : {},
  });

const me = (api: TestApi, token: string) => api.call('GET', '/api/v1/dashboard/me', { token }).then((r) => r.status);

describe('sessions end when a password changes', () => {
  const ctx = useTestApi();

  it("setting a user's password ends that user's sessions; the caller's own session stays", async () => {
    const { email, userId } = await userOf(ctx.api, ctx.admin, 'Set Password');
    const [first, second] = [await ctx.api.login(email, PASSWORD), await ctx.api.login(email, PASSWORD)];
    expect([await me(ctx.api, first), await me(ctx.api, second)]).toEqual([200, 200]);

    const set = await ctx.api.call('POST', `/api/v1/dashboard/users/${userId}/set-password`, {
      token: ctx.admin,
      body: { new_password: 'a-new-password-456' },
    });
    expect(set.status).toBe(200);
    expect([await me(ctx.api, first), await me(ctx.api, second)]).toEqual([401, 401]);
    expect(await me(ctx.api, ctx.admin)).toBe(200);
    expect((await login(ctx.api, email, 'a-new-password-456')).status).toBe(200);

    // The super_admin setting their own password keeps the session that did it, and ends the others.
    const admin = (await ctx.api.call('GET', '/api/v1/dashboard/me', { token: ctx.admin })).body;
    const otherAdminSession = await ctx.api.login();
    const own = await ctx.api.call('POST', `/api/v1/dashboard/users/${admin.user_id}/set-password`, {
      token: ctx.admin,
      body: { new_password: 'root-password-123' },
    });
    expect(own.status).toBe(200);
    expect([await me(ctx.api, ctx.admin), await me(ctx.api, otherAdminSession)]).toEqual([200, 401]);
  });

  it('the set-password e-mail carries a link to choose a password, never the password', async () => {
    const { email, userId } = await userOf(ctx.api, ctx.admin, 'Mailed Password');
    const secret = 'never-in-a-mail-789';
    const set = await ctx.api.call('POST', `/api/v1/dashboard/users/${userId}/set-password`, {
      token: ctx.admin,
      body: { new_password: secret, send_email: true },
    });
    expect(set.body).toMatchObject({ password_set: true, email_sent: true });
    const mail = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: ctx.admin,
      });
      return res.body.messages[0];
    });
    expect(JSON.stringify(mail)).not.toContain(secret);
    const link = mail.links.find((l: string) => l.includes('/reset-password?token='));
    expect(link).toBeDefined();
    const reset = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      body: { token: new URL(link).searchParams.get('token'), new_password: 'chosen-by-the-user-1' },
    });
    expect(reset.status).toBe(200);
    expect((await login(ctx.api, email, 'chosen-by-the-user-1')).status).toBe(200);
  });

  it('a password reset ends every session of the user', async () => {
    const { email, userId } = await userOf(ctx.api, ctx.admin, 'Reset Password');
    const session = await ctx.api.login(email, PASSWORD);
    expect(
      (await ctx.api.call('POST', `/api/v1/dashboard/users/${userId}/trigger-reset`, { token: ctx.admin })).status,
    ).toBe(202);
    const mail = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: ctx.admin,
      });
      return res.body.messages[0];
    });
    const token = new URL(mail.links[0]).searchParams.get('token');
    const reset = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      body: { token, new_password: 'after-the-reset-42' },
    });
    expect(reset.status).toBe(200);
    expect(await me(ctx.api, session)).toBe(401);
  });

  it('a user of a deactivated client cannot log in', async () => {
    const { client, email } = await userOf(ctx.api, ctx.admin, 'Dormant Tenant');
    await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${client.client_id}`, {
      token: ctx.admin,
      body: { is_active: false },
    });
    const res = await login(ctx.api, email, PASSWORD);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid e-mail or password' });
  });
});

describe('login throttling by address without a trusted proxy', () => {
  const ctx = useTestApi({ LOGIN_MAX_FAILURES: '3', LOGIN_ADDRESS_MAX_ACCOUNTS: '3' });

  it("X-Forwarded-For is not believed: every attempt counts against the peer's own address", async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Spoofed Address');
    // Failures for three other accounts, each "from" another forwarded address, all count for this one peer.
    for (const [i, from] of ['198.51.100.1', '198.51.100.2', '198.51.100.3'].entries()) {
      expect((await login(ctx.api, `spoof-${i}@logins.test`, 'wrong-password', from)).status).toBe(401);
    }
    const res = await login(ctx.api, email, PASSWORD, '198.51.100.4');
    expect(res.status).toBe(429);
  });

  it('the password is at most 1024 characters', async () => {
    const res = await login(ctx.api, 'long@logins.test', 'x'.repeat(1025));
    expect(res.status).toBe(422);
  });
});

describe('login throttling behind a trusted reverse proxy, and the password hash under a burst', () => {
  const ctx = useTestApi({ LOGIN_MAX_FAILURES: '3', LOGIN_ADDRESS_MAX_ACCOUNTS: '3', TRUST_PROXY: 'loopback' });

  it('past the failures allowed: 429 with Retry-After, even with the right password, or no account', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Throttled Account');
    // Each attempt from another address: only the account's count can be what refuses.
    for (let i = 1; i <= 3; i++)
      expect((await login(ctx.api, email, 'wrong-password', `203.0.113.${i}`)).status).toBe(401);
    const refused = await login(ctx.api, email, PASSWORD, '203.0.113.4');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'Too many failed logins; try again later' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(900);

    // An account that does not exist reads exactly the same.
    for (let i = 1; i <= 3; i++)
      expect((await login(ctx.api, 'nobody@logins.test', 'wrong-password', `203.0.113.${10 + i}`)).status).toBe(401);
    const ghost = await login(ctx.api, 'nobody@logins.test', PASSWORD, '203.0.113.14');
    expect(ghost.status).toBe(429);
    expect(ghost.body).toEqual(refused.body);
  });

  it('successful logins do not count', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Frequent Visitor');
    for (let i = 0; i < 5; i++) expect((await login(ctx.api, email, PASSWORD, '203.0.113.30')).status).toBe(200);
  });

  it("counts the client's own address from X-Forwarded-For", async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Proxied Client');
    for (let i = 0; i < 3; i++)
      expect((await login(ctx.api, `proxied-${i}@logins.test`, 'wrong-password', '203.0.113.40')).status).toBe(401);
    expect((await login(ctx.api, email, PASSWORD, '203.0.113.40')).status).toBe(429); // that address is throttled
    expect((await login(ctx.api, email, PASSWORD, '203.0.113.41')).status).toBe(200); // another is not
  });

  it('a hash made with older parameters is replaced at the next login', async () => {
    const { email, userId } = await userOf(ctx.api, ctx.admin, 'Old Hash');
    const salt = randomBytes(16);
    const oldKey = scryptSync(PASSWORD, salt, 64, { N: 16384, r: 8, p: 1 });
    const oldHash = ['scrypt', 16384, 8, 1, salt.toString('base64'), oldKey.toString('base64')].join('$');
    await UserModel.updateOne({ _id: userId }, { password_hash: oldHash });
    expect((await login(ctx.api, email, PASSWORD, '203.0.113.50')).status).toBe(200);
    const stored = (await UserModel.findById(userId).lean<{ password_hash: string }>())!.password_hash;
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect((await login(ctx.api, email, PASSWORD, '203.0.113.50')).status).toBe(200);
  });

  it('a burst of failed logins runs at most two hashes at once and leaves the thread pool to other work', async () => {
    takePeakPasswordHashes();
    let answered = 0;
    const burst = Array.from({ length: 16 }, (_, i) =>
      login(ctx.api, `burst-${i}@logins.test`, 'wrong-password', `192.0.2.${i + 1}`).then((res) => {
        answered += 1;
        return res.status;
      }),
    );
    await eventually(async () => (takePeakPasswordHashes() === 2 ? true : undefined), 20_000, 5); // hashing began
    // A file read uses the same libuv thread pool as scrypt. Were every thread hashing, the read would queue behind
    // the burst's hashes (the pool is first in, first out) and come back only once most logins had been answered;
    // with two threads left free it comes back while most are still waiting. An order, not a duration.
    await fs.promises.readFile(__filename);
    expect(answered).toBeLessThan(8);
    const statuses = await Promise.all(burst);
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect(takePeakPasswordHashes()).toBe(2);
  });
});

describe('login limits: tight per account, a credential-stuffing guard per address', () => {
  // The default failures per account (10); the guard lowered so that a test tries few accounts.
  // The API's clock stands still unless a test moves it: the lockout's window ends when the test says.
  const clock = fakeClock();
  const ctx = useTestApi({ LOGIN_ADDRESS_MAX_ACCOUNTS: '4', TRUST_PROXY: 'loopback' }, { clock });
  const wrongTimes = async (email: string, from: string, times: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) statuses.push((await login(ctx.api, email, 'wrong-password', from)).status);
    return statuses;
  };

  it("one person's typos lock their own account, never the administrator's right password from that address", async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Office Typist');
    const office = '203.0.113.60';
    // Ten failures are allowed per account, the eleventh and twelfth are refused without a check.
    expect(await wrongTimes(email, office, 12)).toEqual([...Array(10).fill(401), 429, 429]);
    // The administrator, from the same office address for the first time, gets in.
    const admin = await login(ctx.api, 'root@example.test', 'root-password-123', office);
    expect(admin.status).toBe(200);
    // The typist's own account stays locked, the right password too, from anywhere not known for it.
    expect((await login(ctx.api, email, PASSWORD, office)).status).toBe(429);
    expect((await login(ctx.api, email, PASSWORD, '203.0.113.61')).status).toBe(429);
  });

  it('many accounts guessed from one address: no further account from it; a known login still gets in', async () => {
    const { email: regular } = await userOf(ctx.api, ctx.admin, 'Regular At Cafe');
    const { email: newcomer } = await userOf(ctx.api, ctx.admin, 'First Time At Cafe');
    const cafe = '198.51.100.70';
    expect((await login(ctx.api, regular, PASSWORD, cafe)).status).toBe(200); // the address is now known for it
    // Stuffing: one guess at each of many accounts.
    const guesses = [];
    for (let i = 0; i < 6; i++)
      guesses.push((await login(ctx.api, `stuffed-${i}@logins.test`, 'Summer2024!', cafe)).status);
    expect(guesses).toEqual([401, 401, 401, 401, 429, 429]);
    const refused = await login(ctx.api, 'stuffed-9@logins.test', 'Summer2024!', cafe);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // An account never used from here cannot be tried from here, not even with its right password...
    expect((await login(ctx.api, newcomer, PASSWORD, cafe)).status).toBe(429);
    // ...one that logged in from here lately gets in with its right password, and its typos are still answered.
    expect((await login(ctx.api, regular, 'wrong-password', cafe)).status).toBe(401);
    expect((await login(ctx.api, regular, PASSWORD, cafe)).status).toBe(200);
    // Another address is counted apart.
    expect((await login(ctx.api, newcomer, PASSWORD, '198.51.100.71')).status).toBe(200);
  });

  it('an account guessed at from elsewhere stays open from the address it logs in from', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Targeted Owner');
    const home = '192.0.2.80';
    expect((await login(ctx.api, email, PASSWORD, home)).status).toBe(200);
    // Every guess below falls into one of the lockout's fixed windows (15 minutes): the clock starts a fresh one.
    clock.toNextWindow(15 * 60_000);
    for (let i = 0; i < 10; i++)
      expect((await login(ctx.api, email, 'wrong-password', `192.0.2.${100 + i}`)).status).toBe(401);
    expect((await login(ctx.api, email, PASSWORD, '192.0.2.90')).status).toBe(429); // locked where it is unknown
    expect((await login(ctx.api, email, PASSWORD, home)).status).toBe(200);
    // From its known address it has a tight limit of its own.
    expect(await wrongTimes(email, home, 11)).toEqual([...Array(10).fill(401), 429]);
    expect((await login(ctx.api, email, PASSWORD, home)).status).toBe(429);
    // The lockout is the window's: the next one lets the account in again.
    clock.toNextWindow(15 * 60_000);
    expect((await login(ctx.api, email, PASSWORD, home)).status).toBe(200);
  });
});

/** The device cookie a login's answer sets (name=value), or undefined. */
const deviceCookieOf = (res: { headers: Headers }) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith('lead_device='))
    ?.split(';')[0];

describe('device cookies: a login from a device that logged in before cannot be locked out by others', () => {
  // The defaults (10 failures per account and per device); the stuffing guard and the devices kept per user lowered
  // so that a test tries few accounts and logs in a few times.
  const ctx = useTestApi({ LOGIN_ADDRESS_MAX_ACCOUNTS: '4', LOGIN_DEVICES_PER_USER: '3', TRUST_PROXY: 'loopback' });
  const fromDevice = (email: string, password: string, from: string, cookie?: string) =>
    ctx.api.call('POST', '/api/v1/auth/login', {
      body: { email, password },
      headers: { 'x-forwarded-for': from, ...(cookie ? { cookie } : {}) },
    });
  const failures = async (email: string, from: string, times: number, cookie?: string) => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) statuses.push((await fromDevice(email, 'wrong-password', from, cookie)).status);
    return statuses;
  };
  /** The owner's first login, from `from`: the device cookie it leaves in the browser. */
  const ownersDevice = async (email: string, from: string) => {
    const first = await fromDevice(email, PASSWORD, from);
    expect(first.status).toBe(200);
    const cookie = deviceCookieOf(first);
    expect(cookie).toMatch(/^lead_device=.{40,}$/);
    return cookie!;
  };

  it('the cookie is httpOnly, SameSite=Strict, sent to the login operation only, long-lived, and no session', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Cookie Attributes');
    const res = await fromDevice(email, PASSWORD, '192.0.2.10');
    const set = res.headers.getSetCookie().find((c) => c.startsWith('lead_device='))!;
    const attributes = set.split(/;\s*/).slice(1);
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/api/v1/auth/login', 'Max-Age=15552000']),
    );
    expect(attributes).not.toContain('Secure'); // the service is on http here; behind https: session-cookie.test.ts
    // It proves nothing but the device: no operation takes it as a credential.
    const value = set.split(';')[0].split('=')[1];
    expect(await me(ctx.api, value)).toBe(401);
    const byCookie = await ctx.api.call('GET', '/api/v1/dashboard/me', {
      headers: { cookie: `lead_session=${value}` },
    });
    expect(byCookie.status).toBe(401);
  });

  it('an attacker elsewhere failing 11 times locks the account, but not its owner on a device it logged in from', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Remote Target');
    const first = await fromDevice(email, PASSWORD, '192.0.2.20');
    const cookie = deviceCookieOf(first)!;
    // Logging out ends the session, not the device.
    const logout = await ctx.api.call('POST', '/api/v1/auth/logout', { token: first.body.access_token });
    expect(logout.status).toBe(200);
    expect(deviceCookieOf(logout)).toBeUndefined();
    expect(await failures(email, '198.51.100.20', 11)).toEqual([...Array(10).fill(401), 429]);
    // Without its cookie, at an address it never logged in from, the owner is held by the lock like anyone...
    expect((await fromDevice(email, PASSWORD, '203.0.113.20')).status).toBe(429);
    // ...with it, from that same new address (a train, a hotel), the owner gets in.
    const owner = await fromDevice(email, PASSWORD, '203.0.113.20', cookie);
    expect(owner.status).toBe(200);
    expect(deviceCookieOf(owner)).toMatch(/^lead_device=/); // renewed
  });

  it("an attacker behind the owner's NAT failing 11 times at the owner's account does not lock the owner's device out", async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Office Owner');
    const office = '192.0.2.30';
    const cookie = await ownersDevice(email, office); // the office address is now known for the account too
    expect(await failures(email, office, 11)).toEqual([...Array(10).fill(401), 429]);
    // The account-and-address limit holds the office's other browsers (no cookie)...
    expect((await fromDevice(email, PASSWORD, office)).status).toBe(429);
    // ...stuffing from the office fills its guard for new accounts...
    for (let i = 0; i < 5; i++) await fromDevice(`office-stuffed-${i}@logins.test`, 'Summer2024!', office);
    expect((await fromDevice('office-stuffed-9@logins.test', 'Summer2024!', office)).status).toBe(429);
    // ...and the owner's own browser, with its device cookie, still gets in.
    expect((await fromDevice(email, PASSWORD, office, cookie)).status).toBe(200);
  });

  it('a device cookie has a failure limit of its own: a stolen cookie is no way to guess without end', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Stolen Cookie');
    const cookie = await ownersDevice(email, '192.0.2.40');
    expect(await failures(email, '198.51.100.40', 11, cookie)).toEqual([...Array(10).fill(401), 429]);
    const locked = await fromDevice(email, PASSWORD, '198.51.100.40', cookie);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ detail: 'Too many failed logins; try again later' });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The guesses with the cookie were its own: the owner's other places are not locked by them.
    expect((await fromDevice(email, PASSWORD, '192.0.2.41')).status).toBe(200);
  });

  it('a cookie belongs to its account, is replaced at each login, and a password set or reset forgets them all', async () => {
    const { email, userId } = await userOf(ctx.api, ctx.admin, 'Renewed Cookie');
    const { email: other } = await userOf(ctx.api, ctx.admin, 'Other Account');
    const first = await ownersDevice(email, '192.0.2.50');
    const renewed = deviceCookieOf(await fromDevice(email, PASSWORD, '192.0.2.50', first))!;
    expect(renewed).not.toBe(first);
    const otherBrowser = await ownersDevice(email, '192.0.2.51');
    expect(await failures(email, '198.51.100.50', 10)).toEqual(Array(10).fill(401)); // locked for unknown devices
    await failures(other, '198.51.100.50', 10);
    // The replaced cookie is unknown now (a copy taken before the owner's last login is worth nothing), and a
    // cookie of one account is nothing for another.
    expect((await fromDevice(email, PASSWORD, '203.0.113.50', first)).status).toBe(429);
    expect((await fromDevice(other, PASSWORD, '203.0.113.50', renewed)).status).toBe(429);
    expect((await fromDevice(email, PASSWORD, '203.0.113.50', renewed)).status).toBe(200);

    // A password set by an administrator (as a reset does) makes every device of the user unknown again.
    const set = await ctx.api.call('POST', `/api/v1/dashboard/users/${userId}/set-password`, {
      token: ctx.admin,
      body: { new_password: PASSWORD },
    });
    expect(set.status).toBe(200);
    expect((await fromDevice(email, PASSWORD, '203.0.113.51', otherBrowser)).status).toBe(429);
  });

  it('remembers the devices of the most recent logins only: a client that keeps no cookie does not pile them up', async () => {
    const { email } = await userOf(ctx.api, ctx.admin, 'Scripted Logins');
    const oldest = await ownersDevice(email, '192.0.2.60');
    const second = await ownersDevice(email, '192.0.2.60');
    for (let i = 0; i < 2; i++) expect((await fromDevice(email, PASSWORD, '192.0.2.60')).status).toBe(200); // 3 kept
    await failures(email, '198.51.100.60', 10); // locked for unknown devices
    expect((await fromDevice(email, PASSWORD, '203.0.113.60', oldest)).status).toBe(429); // forgotten
    expect((await fromDevice(email, PASSWORD, '203.0.113.60', second)).status).toBe(200);
  });
});

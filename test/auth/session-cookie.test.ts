import { sessionCookieOf } from '../../src/auth/authenticate';
import { ADMIN, useTestApi } from '../support/harness';

describe('the session cookie as authentication reads it from the Cookie header', () => {
  it.each([
    ['lead_session=lss_abc', 'lss_abc'],
    ['theme=dark; lead_session=lss_abc; lang=en', 'lss_abc'],
    ['theme=dark;lead_session=lss_abc', 'lss_abc'],
    ['lead_session="lss_abc"', 'lss_abc'],
    ['lead_session=lss_a%2Bb', 'lss_a+b'],
    ['lead_session=lss_bad%E0', 'lss_bad%E0'],
    ['lead_session=first; lead_session=second', 'first'],
  ])('%s gives %s', (header, value) => expect(sessionCookieOf(header)).toBe(value));

  it.each([undefined, '', 'theme=dark', 'not_lead_session=lss_abc', 'lead_session=', 'lead_sessionx=lss_abc'])(
    '%s gives none',
    (header) => expect(sessionCookieOf(header)).toBeUndefined(),
  );
});

describe('behind HTTPS (PUBLIC_BASE_URL https://…)', () => {
  const ctx = useTestApi({ PUBLIC_BASE_URL: 'https://leads.example.test' });

  it('the session and device cookies a login sets are Secure', async () => {
    const res = await ctx.api.call('POST', '/api/v1/auth/login', { body: ADMIN });
    expect(res.status).toBe(200);
    const cookies = Object.fromEntries(
      res.headers.getSetCookie().map((c) => [c.split('=')[0], c.split(/;\s*/).slice(1)] as const),
    );
    expect(cookies.lead_session).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(cookies.lead_device).toEqual(
      expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/api/v1/auth/login']),
    );
  });
});

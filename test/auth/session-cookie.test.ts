import { sessionCookieOf } from '../../src/auth/authenticate';

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

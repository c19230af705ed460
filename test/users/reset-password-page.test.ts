import type { Browser } from 'puppeteer-core';
import { launchBrowser } from '../support/browser';
import { createClient, eventually, useTestApi } from '../support/harness';

describe('the reset-password page', () => {
  const ctx = useTestApi();
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  /** A user of a new client and the reset link e-mailed to them. */
  async function resetLink(email: string) {
    const client = await createClient(ctx.api, ctx.admin, 'Reset Page Co');
    const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'first-password-1' },
    });
    expect(
      (await ctx.api.call('POST', `/api/v1/dashboard/users/${user.body.user_id}/trigger-reset`, { token: ctx.admin }))
        .status,
    ).toBe(202);
    const messages = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: ctx.admin,
      });
      return res.body.messages.length ? res.body.messages : undefined;
    });
    return messages[0].links.find((l: string) => l.includes('/reset-password?token=')) as string;
  }

  it('is served with a CSP that admits only its own hashed script and style, no referrer and no caching', async () => {
    const res = await fetch(`${ctx.api.url}/reset-password?token=abc`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual([expect.stringMatching(/^'sha256-[A-Za-z0-9+/]{43}='$/)]);
    expect(directives['style-src']).toEqual([expect.stringMatching(/^'sha256-[A-Za-z0-9+/]{43}='$/)]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce-/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('works under that policy in a real browser: the new password is set, and nothing was refused', async () => {
    const email = 'page-user@reset-page.test';
    const link = await resetLink(email);
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
    });
    const response = await page.goto(link);
    expect(response!.status()).toBe(200);
    // The hashed style applied (an unadmitted one would leave the button at its default width).
    expect(await page.$eval('button', (el) => el.getBoundingClientRect().width > 200)).toBe(true);
    await page.type('#p', 'page-password-22');
    await page.click('button');
    await eventually(async () =>
      (await page.$eval('#m', (el) => (el as unknown as { textContent: string | null }).textContent))
        ? true
        : undefined,
    );
    expect(await page.$eval('#m', (el) => (el as unknown as { textContent: string | null }).textContent)).toBe(
      'Your password was changed. You can sign in now.',
    );
    expect(refused).toEqual([]);
    await page.close();
    expect(
      (await ctx.api.call('POST', '/api/v1/auth/login', { body: { email, password: 'page-password-22' } })).status,
    ).toBe(200);
  });
});

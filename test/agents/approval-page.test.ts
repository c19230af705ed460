import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { createClient, useTestApi } from '../support/harness';
import { launchBrowser } from '../support/browser';
import { fakeClock } from '../support/fake-clock';
import { approvalMail, brandsFor, linkOf, pollUntil, requestAccess } from './agent-helpers';

/** Set SCREENSHOT_DIR to keep a picture of each page a test opens (for a person to look at). */
async function screenshot(page: Page, name: string) {
  if (process.env.SCREENSHOT_DIR)
    await page.screenshot({ path: path.join(process.env.SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** What the page's elements give in the browser (the suite's TypeScript has no DOM types). */
type Rendered = { innerText: string; action: string };

const FINGERPRINT = {
  agent_type: 'claude-code',
  hostname: 'dev-laptop',
  cwd: '/home/dev/lead-finder',
  platform: 'linux',
};

describe('the approval link, opened by a person in a real browser', () => {
  // The API's clock stands still unless a test moves it: the minute's window ends when the test says.
  const clock = fakeClock();
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' }, { clock });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  const textOf = (page: Page) => page.$eval('body', (el) => (el as unknown as Rendered).innerText);

  it('shows who asks for what, where and until when, with both decisions; its approve button approves', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser');
    await brandsFor(client.client_id, [701]);
    const receipt = await requestAccess(ctx.api, client.client_id, {
      requested_scopes: ['jobs:read', 'content:write'],
      ttl_hours: 72,
      fingerprint: FINGERPRINT,
    });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    const response = await page.goto(linkOf(mail, 'approve'));
    expect(response!.status()).toBe(200);
    expect(response!.headers()).toMatchObject({
      'content-type': expect.stringMatching(/^text\/html/),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': expect.stringContaining("default-src 'none'"),
    });
    expect(response!.headers()['content-security-policy']).not.toContain('script-src');
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Approve access for lead-finder?');
    const question = await textOf(page);
    // The client and the brand by name, the requester, the agent's fingerprint.
    expect(question).toContain('asks for access to Browser');
    expect(question).toMatch(/In brands\s+Brand 701/);
    expect(question).toContain('dev@agency.test');
    expect(question).toContain('claude-code on dev-laptop (linux)');
    expect(question).toContain('working directory /home/dev/lead-finder');
    // The scopes in words (with their names), the lifetime, the expiry relative and absolute with its zone.
    expect(question).toContain("read the client's jobs, their results and lead data");
    expect(question).toContain('create and edit posts, pages, authors, tags and categories');
    expect(question).toContain('72 hours (3 days) from approval');
    expect(question).toMatch(/Decide by\s+in (23|24) hours, \w+day \d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC/);
    const expiry = await page.$eval('time', (el) => el.getAttribute('datetime'));
    expect(expiry).toBe(receipt.expires_at);
    // Both decisions, each a form that POSTs to its own link; this link's first.
    const forms = await page.$$eval('form', (els) =>
      els.map((f) => ({
        method: f.getAttribute('method'),
        action: (f as unknown as Rendered).action,
        button: f.innerText,
      })),
    );
    expect(forms).toEqual([
      { method: 'post', action: linkOf(mail, 'approve'), button: 'Approve access' },
      { method: 'post', action: linkOf(mail, 'deny'), button: 'Deny access' },
    ]);
    // The page fits a phone's width: nothing scrolls sideways.
    expect(await page.$eval('html', (el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await screenshot(page, 'approval-page');
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe('pending'); // opening it decided nothing

    await Promise.all([page.waitForNavigation(), page.click('button#approve')]);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access approved');
    const text = await textOf(page);
    expect(text).toContain("read the client's jobs, their results and lead data");
    expect(text).toContain('Brands: Brand 701.');
    expect(text).toMatch(/Until \w+day \d{1,2} \w+ \d{4} at \d{2}:\d{2} UTC \(in 3 days\)/);
    const polled = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    expect(polled.access_token).toMatch(/^lpat_/);

    // Back and pressing again: the page says nothing more was decided.
    await page.goBack();
    await page.reload();
    expect(await textOf(page)).toContain('Access request already approved');
    expect(await page.$('button')).toBeNull();
  });

  it('shows the limits asked for and the brand default; the approver lowers one, and the token is held to it', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser Limits');
    await brandsFor(client.client_id, [704]);
    const asked = await ctx.api.call('POST', '/api/v1/auth/pat/request-by-email', {
      body: {
        email: client.admin_email,
        project_name: 'lead-finder',
        requested_scopes: ['jobs:read'],
        rate_limit_rpd: 5000,
        monthly_budget_usd: 50,
      },
    });
    expect(asked.status).toBe(200);
    const receipt = asked.body;
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    expect(mail.text).toContain(
      'Limits asked: no limit per minute, 5,000 requests per day, a monthly budget of USD 50.00',
    );
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(linkOf(mail, 'approve'));
    const field = (id: string) => page.$eval(`#${id}`, (el) => (el as unknown as { value: string }).value);
    // Filled with the offer: what was asked, and for requests per minute (not asked) the brand's default.
    expect([await field('rate_limit_rpm'), await field('rate_limit_rpd'), await field('monthly_budget_usd')]).toEqual([
      '60',
      '5000',
      '50',
    ]);
    const question = await textOf(page);
    expect(question).toMatch(/Requests per minute\s+not asked; the brand's default is 60; empty: no limit/);
    expect(question).toMatch(/Requests per day\s+asked for 5000/);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Approve access for lead-finder?');
    expect(await page.$eval('html', (el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await screenshot(page, 'approval-page-limits');

    const setField = async (id: string, value: string) => {
      await page.$eval(`#${id}`, (el) => ((el as unknown as { value: string }).value = ''));
      await page.type(`#${id}`, value);
    };
    // A value out of bounds, sent past the browser's own check: 422, the page again with what is wrong, nothing decided.
    await setField('rate_limit_rpm', '0');
    const [refused] = await Promise.all([
      page.waitForNavigation(),
      page.$eval('#approve-form', (form) => (form as unknown as { submit(): void }).submit()),
    ]);
    expect(refused!.status()).toBe(422);
    const again = await textOf(page);
    expect(again).toContain('Nothing was decided: a limit below is not valid.');
    expect(again).toContain('must be from 1 to 1000000');
    expect(await field('rate_limit_rpm')).toBe('0'); // what the approver entered, to correct
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe('pending');

    // Lowered to 2 per minute, the budget removed (an empty field): approved as set.
    await setField('rate_limit_rpm', '2');
    await page.$eval('#monthly_budget_usd', (el) => ((el as unknown as { value: string }).value = ''));
    await Promise.all([page.waitForNavigation(), page.click('button#approve')]);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access approved');
    expect(await textOf(page)).toContain('Limits: 2 requests per minute, 5,000 requests per day, no monthly budget.');
    const { access_token: token } = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    clock.toNextWindow(60_000);
    const [status, second, third] = [
      await ctx.api.call('GET', '/api/v1/auth/pat/status', { token }),
      await ctx.api.call('GET', '/api/v1/auth/pat/status', { token }),
      await ctx.api.call('GET', '/api/v1/auth/pat/status', { token }),
    ];
    expect(status.body.agent_users).toEqual([
      expect.objectContaining({ brand_id: 704, rate_limit_rpm: 2, rate_limit_rpd: 5000, monthly_budget_usd: null }),
    ]);
    // Held to it: the third request in the minute is refused.
    expect([status.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect(third.headers.get('ratelimit-policy')).toBe('"rpm";q=2;w=60, "rpd";q=5000;w=86400');
  });

  it("the deny link's page shows the same facts, its deny button first; pressing it denies", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser Deny');
    await brandsFor(client.client_id, [702]);
    const receipt = await requestAccess(ctx.api, client.client_id, { fingerprint: FINGERPRINT });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(linkOf(mail, 'deny'));
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Deny access for lead-finder?');
    const question = await textOf(page);
    expect(question).toContain('asks for access to Browser Deny');
    expect(question).toMatch(/In brands\s+Brand 702/);
    expect(question).toContain('claude-code on dev-laptop (linux)');
    expect(question).toMatch(/It asks to\s+read the client's jobs/);
    expect(await page.$$eval('button', (els) => els.map((b) => b.textContent))).toEqual([
      'Deny access',
      'Approve access',
    ]);
    await screenshot(page, 'deny-page');
    await Promise.all([page.waitForNavigation(), page.click('button#deny')]);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access denied');
    expect((await pollUntil(ctx.api, receipt, (b) => b.status !== 'pending')).status).toBe('denied');
  });

  it('escapes everything the agent and the tenant supplied', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Evil <i>Corp</i>');
    await brandsFor(client.client_id, [703]);
    const hostile = '"><img src=x id=injected><script>document.title="owned"</script>';
    const receipt = await requestAccess(ctx.api, client.client_id, {
      project_name: `lead-finder ${hostile}`,
      owner_email: 'dev@agency.test',
      fingerprint: { agent_type: hostile, hostname: hostile, cwd: `/tmp/${hostile}`, '<b id=key>': hostile },
    });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.goto(linkOf(mail, 'approve'));
    expect(await page.$('#injected')).toBeNull();
    expect(await page.$('i')).toBeNull();
    expect(await page.$('#key')).toBeNull();
    expect(await page.$$('script')).toHaveLength(0);
    expect(await page.title()).toBe(`Approve access for lead-finder ${hostile}?`);
    const text = await textOf(page);
    expect(text).toContain('asks for access to Evil <i>Corp</i>');
    expect(text).toContain(`working directory /tmp/${hostile}`);
    // The buttons still post to the links, whatever was injected around them.
    expect(await page.$$eval('form', (els) => els.map((f) => (f as unknown as Rendered).action))).toEqual([
      linkOf(mail, 'approve'),
      linkOf(mail, 'deny'),
    ]);
  });
});

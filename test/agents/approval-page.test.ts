import type { Browser } from 'puppeteer-core';
import { createClient, useTestApi } from '../support/harness';
import { launchBrowser } from '../support/browser';
import { approvalMail, brandsFor, linkOf, pollUntil, requestAccess, sleep } from './agent-helpers';

describe('the approval link, opened by a person in a real browser', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('the link shows the grant and decides nothing; its button approves; the token is picked up', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser');
    await brandsFor(client.client_id, [701]);
    const receipt = await requestAccess(ctx.api, client.client_id, {
      requested_scopes: ['jobs:read', 'content:write'],
    });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    const response = await page.goto(linkOf(mail, 'approve'));
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-type']).toMatch(/^text\/html/);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Approve access for lead-finder?');
    const question = await page.$eval('body', (el) => el.textContent ?? '');
    expect(question).toContain('jobs:read, content:write');
    expect(question).toContain('brands 701');
    // The page fits a phone's width: nothing scrolls sideways.
    expect(await page.$eval('html', (el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await sleep(1100);
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe('pending'); // opening it decided nothing

    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access approved');
    const text = await page.$eval('body', (el) => el.textContent ?? '');
    expect(text).toContain('jobs:read, content:write');
    expect(text).toContain('Brands: 701.');
    const polled = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    expect(polled.access_token).toMatch(/^lpat_/);

    // Back and pressing again: the page says nothing more was decided.
    await page.goBack();
    await page.reload();
    expect(await page.$eval('body', (el) => el.textContent ?? '')).toContain('Access request already approved');
    expect(await page.$('button')).toBeNull();
  });

  it("the deny link's button denies", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser Deny');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.goto(linkOf(mail, 'deny'));
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Deny access for lead-finder?');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access denied');
    expect((await pollUntil(ctx.api, receipt, (b) => b.status !== 'pending')).status).toBe('denied');
  });
});

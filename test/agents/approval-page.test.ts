import type { Browser } from 'puppeteer-core';
import { createClient, useTestApi } from '../support/harness';
import { launchBrowser } from '../support/browser';
import { approvalMail, brandsFor, linkOf, pollUntil, requestAccess } from './agent-helpers';

describe('the approval link, opened by a person in a real browser', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('shows what was granted; the agent then picks its token up', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser');
    await brandsFor(client.client_id, [701]);
    const receipt = await requestAccess(ctx.api, client.client_id, { requested_scopes: ['jobs:read', 'content:write'] });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    const response = await page.goto(linkOf(mail, 'approve'));
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-type']).toMatch(/^text\/html/);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access approved');
    const text = await page.$eval('body', (el) => el.textContent ?? '');
    expect(text).toContain('jobs:read, content:write');
    expect(text).toContain('Brands: 701.');
    // The page fits a phone's width: nothing scrolls sideways.
    const fits = await page.$eval('html', (el) => el.scrollWidth <= el.clientWidth);
    expect(fits).toBe(true);
    const polled = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    expect(polled.access_token).toMatch(/^lpat_/);
  });

  it('the deny link says the agent was denied', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Browser Deny');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const page = await browser.newPage();
    await page.goto(linkOf(mail, 'deny'));
    expect(await page.$eval('h1', (el) => el.textContent)).toBe('Access denied');
  });
});

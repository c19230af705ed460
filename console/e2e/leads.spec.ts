import type { Page } from '@playwright/test';
import {
  apiCall,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  test,
  type Tenant,
} from './support/fixtures';
import { businesses, refOf, seedPhoto, seedResources } from './support/leads-seed';

interface Listed {
  idap_ref: string;
  flags: string[];
  data: Record<string, unknown>;
}

/** Every lead of a type the list operation answers now (its cursor followed to the end), as the API sees them. */
async function listAll(tenant: Tenant, type: string, flags?: string): Promise<Listed[]> {
  const items: Listed[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: '100', ...(flags ? { flags } : {}), ...(cursor ? { cursor } : {}) });
    const page = await apiCall('GET', `/api/v1/idap/${type}?${query}`, tenant.triple);
    items.push(...page.items);
    if (!page.has_more) return items;
    cursor = page.next_cursor;
  }
}

/** The flags of leads now, through the batch operation. */
async function flagsOf(tenant: Tenant, refs: string[]): Promise<string[][]> {
  const answer = await apiCall('POST', '/api/v1/idap/batch', tenant.triple, { refs });
  return refs.map((r) => answer.results[r]?.flags ?? []);
}

const table = (page: Page, name: string) => page.getByRole('table', { name, exact: true });
const dataRows = (page: Page) => page.locator('tbody tr[data-row-id]');
const status = (page: Page) => page.getByRole('status').filter({ hasText: /loaded|matches/ });

/** Businesses besides the one with linked resources: more than a page of the list (100), half of them qualified. */
const MAIN = 240;

test.describe('leads of a tenant with linked resources', () => {
  let tenant: Tenant;
  let zon: string;
  const linked = {
    domain: '',
    phone: '',
    contact: '',
    email: '',
    registry: '',
    profile: '',
  };

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    tenant = await createTenant('Leads');
    const cid = tenant.clientId;
    zon = refOf(cid, 'businesses', 'place-zon');
    linked.domain = refOf(cid, 'domains', 'dezon.example');
    linked.phone = refOf(cid, 'phones', '+31301234567');
    linked.contact = refOf(cid, 'contacts', 'dezon.example|Anna de Zon');
    linked.email = refOf(cid, 'emails', 'anna@dezon.example');
    linked.registry = refOf(cid, 'company_registry', 'NL:30123456');
    linked.profile = refOf(cid, 'linkedin_profiles', 'https://www.linkedin.com/in/annadezon');
    const photo = await seedPhoto(cid);
    await seedResources(cid, [
      ...businesses(MAIN),
      {
        type: 'businesses',
        naturalKey: 'place-zon',
        data: {
          name: 'Bakkerij de Zon',
          category: 'Bakery',
          address: 'Oudegracht 12, 3511 AP Utrecht',
          phone: '+31 30 123 4567',
          website: 'https://dezon.example',
          rating: 4.6,
          photos: [photo],
        },
        related: [linked.domain, linked.phone, linked.contact, linked.registry],
      },
      {
        type: 'domains',
        naturalKey: 'dezon.example',
        data: { domain: 'dezon.example', title: 'Bakkerij de Zon', website: 'https://dezon.example' },
        related: [zon],
      },
      {
        type: 'phones',
        naturalKey: '+31301234567',
        data: { number: '+31 30 123 4567', normalized: '+31301234567' },
        related: [zon],
      },
      {
        type: 'contacts',
        naturalKey: 'dezon.example|Anna de Zon',
        data: { name: 'Anna de Zon', title: 'Owner', email: 'anna@dezon.example', company: 'Bakkerij de Zon' },
        related: [zon, linked.email, linked.profile],
      },
      {
        type: 'emails',
        naturalKey: 'anna@dezon.example',
        data: { address: 'anna@dezon.example', domain: 'dezon.example' },
        related: [linked.contact],
      },
      {
        type: 'company_registry',
        naturalKey: 'NL:30123456',
        data: { name: 'Bakkerij de Zon B.V.', registration_number: '30123456', country_code: 'NL' },
        related: [zon],
      },
      {
        type: 'linkedin_profiles',
        naturalKey: 'https://www.linkedin.com/in/annadezon',
        data: { url: 'https://www.linkedin.com/in/annadezon', kind: 'person', name: 'Anna de Zon', headline: 'Owner' },
        related: [linked.contact],
      },
    ]);
    // The list reads a few seconds behind now (its settle bound): wait until it answers every business.
    await expect.poll(async () => (await listAll(tenant, 'businesses')).length, { timeout: 30_000 }).toBe(MAIN + 1);
  });

  test('/leads opens the businesses, a page at a time: load more, then scrolling loads the rest', async ({ page }) => {
    await signIn(page, tenant.user, '/console/leads');
    await expect(page).toHaveURL(/\/console\/leads\/businesses$/);
    await expect(navLink(page, 'Leads')).toHaveAttribute('aria-current', 'page');
    await expect(page.getByRole('link', { name: 'Businesses', exact: true })).toHaveAttribute('aria-current', 'page');
    await expect(table(page, 'Businesses')).toBeVisible();
    await expect(status(page)).toHaveText('100 businesses loaded, more as you scroll.');
    await expect(dataRows(page).first()).toContainText(/Business \d+|Bakkerij de Zon/);
    await expectAccessibleInBothThemes(page);

    await page.getByRole('button', { name: 'Load more' }).click();
    await expect(status(page)).toHaveText('200 businesses loaded, more as you scroll.');
    // Scrolling the table to its end loads the next page by itself.
    const region = page.getByRole('region', { name: 'Businesses (scrollable)' });
    await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(status(page)).toHaveText(`${MAIN + 1} businesses loaded, all of them.`);

    // Another type: its own table.
    await page.getByRole('link', { name: 'Contacts', exact: true }).click();
    await expect(page).toHaveURL(/\/console\/leads\/contacts$/);
    await expect(table(page, 'Contacts')).toContainText('Anna de Zon');
  });

  test('the ranked search, its text in the URL', async ({ page }) => {
    await signIn(page, tenant.user, '/console/leads/businesses');
    await page.getByLabel('Search businesses').fill('bakkerij zon');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page).toHaveURL(/[?&]q=bakkerij(\+|%20)zon/);
    await expect(status(page)).toContainText('1 best matches for “bakkerij zon”');
    await expect(dataRows(page)).toHaveCount(1);
    await expect(dataRows(page).first()).toContainText('Bakkerij de Zon');
    await page.reload();
    await expect(page.getByLabel('Search businesses')).toHaveValue('bakkerij zon');
    await expect(dataRows(page).first()).toContainText('Bakkerij de Zon');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect(page).toHaveURL(/\/console\/leads\/businesses$/);
    await expect(status(page)).toHaveText('100 businesses loaded, more as you scroll.');
  });

  test('a flag filter lives in the URL: a reload reproduces the view and Back returns to the one before', async ({
    page,
  }) => {
    await signIn(page, tenant.user, '/console/leads/businesses');
    await expect(status(page)).toHaveText('100 businesses loaded, more as you scroll.');
    const flagsInUrl = () => new URL(page.url()).searchParams.get('flags');
    const unqualified = dataRows(page).filter({ hasNotText: 'qualified' });
    await expect(unqualified.first()).toBeVisible();
    await page.getByLabel('Qualified').selectOption({ label: 'Only qualified' });
    await expect.poll(flagsInUrl).toBe('qualified');
    await expect(dataRows(page).first()).toContainText('qualified');
    await expect(unqualified).toHaveCount(0);
    await page.getByLabel('Rejected').selectOption({ label: 'Not rejected' });
    await expect.poll(flagsInUrl).toBe('qualified,!rejected');
    await page.reload();
    await expect(page.getByLabel('Qualified')).toHaveValue('with');
    await expect(page.getByLabel('Rejected')).toHaveValue('without');
    await expect(dataRows(page).first()).toContainText('qualified');
    await expect(unqualified).toHaveCount(0);
    await page.goBack();
    await expect.poll(flagsInUrl).toBe('qualified');
    await expect(page.getByLabel('Rejected')).toHaveValue('');
    await page.goBack();
    await expect(page).toHaveURL(/\/console\/leads\/businesses$/);
    await expect(page.getByLabel('Qualified')).toHaveValue('');
    await expect(unqualified.first()).toBeVisible();
  });

  test('the detail panel: fields, photos, linked resources each opening in turn; qualify it', async ({ page }) => {
    await signIn(page, tenant.user, '/console/leads/businesses?q=zon');
    await page.getByRole('button', { name: 'Bakkerij de Zon' }).click();
    const panel = page.getByRole('dialog', { name: 'Bakkerij de Zon' });
    await expect(panel).toBeVisible();
    await expect(page).toHaveURL(/[?&]lead=idap/);
    await expect(panel).toContainText('Oudegracht 12, 3511 AP Utrecht');
    const photo = panel.getByRole('img', { name: 'Photo 1 of Bakkerij de Zon' });
    await expect(photo).toBeVisible();
    expect(await photo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    for (const group of ['Domains (1)', 'Phones (1)', 'Contacts (1)', 'Registry entries (1)'])
      await expect(panel.getByRole('heading', { name: group })).toBeVisible();
    await expectAccessibleInBothThemes(page);

    await panel.getByRole('button', { name: 'Open contact Anna de Zon' }).click();
    const contact = page.getByRole('dialog', { name: 'Anna de Zon' });
    await expect(contact).toContainText('anna@dezon.example');
    await expect(contact.getByRole('heading', { name: 'E-mails (1)' })).toBeVisible();
    await expect(contact.getByRole('heading', { name: 'LinkedIn profiles (1)' })).toBeVisible();
    await contact.getByRole('button', { name: 'Open LinkedIn profile Anna de Zon' }).click();
    await expect(page.getByRole('dialog', { name: 'Anna de Zon' })).toContainText('linkedin.com/in/annadezon');
    // Back walks the panels back to the business.
    await page.goBack();
    await page.goBack();
    await expect(panel).toBeVisible();

    await panel.getByRole('button', { name: 'Qualify' }).click();
    await expect(page.locator('[data-sonner-toast]').filter({ hasText: 'Qualified' })).toBeVisible();
    await expect.poll(async () => (await flagsOf(tenant, [zon]))[0]).toEqual(['qualified']);
    await expect(panel.getByRole('button', { name: 'Qualify' })).toBeDisabled();
    // The table shows the change without a reload.
    await page.keyboard.press('Escape');
    await expect(page).not.toHaveURL(/lead=/);
    await expect(dataRows(page).first()).toContainText('qualified');
  });

  test('a selection is rejected in one call of the bulk flags operation', async ({ page }) => {
    await signIn(page, tenant.user, '/console/leads/businesses?flags=!rejected');
    await expect(dataRows(page)).not.toHaveCount(0);
    const refs = await dataRows(page).evaluateAll((rows) =>
      rows.slice(3, 6).map((r) => r.getAttribute('data-row-id')!),
    );
    for (const n of [4, 5, 6]) await page.getByRole('checkbox', { name: `Select row ${n}` }).click();
    const bar = page.getByRole('region', { name: 'Selected leads' });
    await expect(bar).toContainText('3 businesses selected');
    const call = page.waitForRequest((r) => r.url().endsWith('/api/v1/idap/flags') && r.method() === 'POST');
    await bar.getByRole('button', { name: 'Reject selected' }).click();
    expect((await call).postDataJSON()).toEqual({ refs, add: ['rejected'], remove: ['new'] });
    await expect(page.getByText('3 leads rejected')).toBeVisible();
    for (const flags of await flagsOf(tenant, refs)) expect(flags).toContain('rejected');
    // The view excludes rejected leads: they leave it.
    for (const ref of refs) await expect(page.locator(`tr[data-row-id="${ref}"]`)).toHaveCount(0);
  });

  test('at phone width the page fits and the table scrolls inside its own region', async ({ page }) => {
    await signIn(page, tenant.user, '/console/leads/businesses');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(table(page, 'Businesses')).toBeVisible();
    await expect(status(page)).toHaveText('100 businesses loaded, more as you scroll.');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessibleInBothThemes(page);
  });
});

test.describe('a tenant with a few thousand leads', () => {
  const MANY = 3000;
  let tenant: Tenant;

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    tenant = await createTenant('Many leads');
    await seedResources(tenant.clientId, businesses(MANY, 'Shop'));
    await expect
      .poll(async () => (await listAll(tenant, 'businesses', 'qualified')).length, { timeout: 30_000 })
      .toBe(MANY / 2);
  });

  test('scrolling through them keeps a bounded number of rows in the DOM', async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, tenant.user, '/console/leads/businesses');
    const region = page.getByRole('region', { name: 'Businesses (scrollable)' });
    await expect(status(page)).toHaveText('100 businesses loaded, more as you scroll.');
    let most = 0;
    await expect
      .poll(
        async () => {
          await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
          most = Math.max(most, await dataRows(page).count());
          return status(page).textContent();
        },
        { timeout: 150_000, intervals: [200] },
      )
      .toBe('3,000 businesses loaded, all of them.');
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(60);
    await expect(dataRows(page).last()).toContainText('Shop');
  });

  test('export of the filtered set: CSV and JSON, every lead of the filter streamed by the API', async ({ page }) => {
    await signIn(page, tenant.user, '/console/leads/businesses?flags=qualified');
    await expect(status(page)).toHaveText('100 businesses loaded, more as you scroll.');
    const total = (await listAll(tenant, 'businesses', 'qualified')).length;
    expect(total).toBeGreaterThan(100);

    const csvLink = page.getByRole('link', { name: 'Export CSV' });
    const csvHref = await csvLink.getAttribute('href');
    expect(csvHref).toBe('/api/v1/idap/businesses?format=csv&flags=qualified');
    // The link with the page's own cookie (the browser context's request shares it).
    const csv = await page.request.get(csvHref!);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
    const rows = (await csv.text()).split('\r\n').filter(Boolean);
    expect(rows[0]).toMatch(/^idap_ref,name,/);
    expect(rows.length - 1).toBe(total);

    const jsonHref = await page.getByRole('link', { name: 'Export JSON' }).getAttribute('href');
    const json = await page.request.get(jsonHref!);
    expect(json.headers()['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = (await json.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Listed);
    expect(lines).toHaveLength(total);
    expect(lines.every((l) => l.flags.includes('qualified'))).toBe(true);

    // And the link itself downloads.
    const download = page.waitForEvent('download');
    await csvLink.click();
    expect((await download).suggestedFilename()).toBe('businesses.csv');
  });
});

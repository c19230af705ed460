import type { Page } from '@playwright/test';
import {
  SUPER_ADMIN,
  adminToken,
  apiCall,
  createBrandWithAdmin,
  createTenant,
  drawnChart,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  test,
  type ChartPoint,
  type Tenant,
  type TenantBrand,
  loginToken,
} from './support/fixtures';

const REPORTS = '/api/v1/dashboard/admin';

/** The points a chart of `rows` draws for `series`, as the API answered them (in its order). */
const pointsOf = (rows: Record<string, unknown>[], category: string, series: string[]): ChartPoint[] =>
  series.flatMap((s) => rows.map((r) => ({ category: String(r[category]), series: s, value: Number(r[s]) })));
const sorted = (points: ChartPoint[]) =>
  [...points].sort((a, b) => `${a.series}|${a.category}`.localeCompare(`${b.series}|${b.category}`));

/** The report the page shows, once it has read it: waits for the page's own call and the drawn section. */
async function openReport(page: Page, tab: string) {
  await page.getByRole('tab', { name: tab }).click();
  await expect(
    page.getByRole('heading', { level: 2, name: tab === 'Mobile' ? 'Mobile subscriptions' : tab }),
  ).toBeVisible();
}

let tenant: Tenant;
let brand: TenantBrand;
test.beforeAll(async () => {
  tenant = await createTenant('Reports');
  brand = await createBrandWithAdmin(tenant, 'Reports');
  // One maps-scrape job of the tenant's, finished, so its KPIs have figures of their own.
  const job = await apiCall('POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', tenant.triple, {
    query: 'bakery',
    country_code: 'NL',
    region_codes: ['NL-ZE'],
    max_locations: 1,
  });
  await expect
    .poll(
      async () =>
        (await apiCall('GET', `/api/v1/dashboard/client/jobs/${job.job_id}/status`, tenant.triple)).status as string,
      { timeout: 60_000 },
    )
    .toBe('completed');
});

test('a super admin reads the platform’s reports, the window and country in the URL, each chart drawn from the API’s figures', async ({
  page,
}) => {
  await signIn(page, SUPER_ADMIN, '/console/');
  await navLink(page, 'Reports').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible();
  await expect(page.getByText('The platform’s figures, every client together.')).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'KPIs' })).toBeVisible();
  await expect(page.getByRole('group', { name: 'Headline figures' })).toBeVisible();

  // The pickers write the URL: a preset window, then a country.
  await page.getByLabel('Period').selectOption('last_7_days');
  await expect(page).toHaveURL(/period=last_7_days/);
  await page.getByLabel('Country').fill('nl');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/country=NL/);

  // Product analytics: the events by category as the provider (the sandbox) answered the API.
  await openReport(page, 'Product analytics');
  await expect(page).toHaveURL(/view=product/);
  const admin = await adminToken();
  const product = await apiCall('GET', `${REPORTS}/product-analytics-metrics?period=last_7_days&country=NL`, admin);
  expect(product.source_status).toBe('ok');
  expect(sorted(await drawnChart(page, 'Events by category'))).toEqual(
    sorted(pointsOf(product.categories, 'category', ['count'])),
  );
  await expect(page.getByRole('group', { name: 'Product analytics totals' })).toContainText(
    new Intl.NumberFormat('en-GB').format(product.total_events),
  );
  await expectAccessibleInBothThemes(page);

  // Campaigns: messages and rates per campaign, each series drawn to the API's values.
  await openReport(page, 'Campaigns');
  const campaigns = await apiCall('GET', `${REPORTS}/campaigns?period=last_7_days&country=NL`, admin);
  expect(campaigns.campaigns.length).toBeGreaterThan(0);
  expect(sorted(await drawnChart(page, 'Messages per campaign'))).toEqual(
    sorted(pointsOf(campaigns.campaigns, 'name', ['sent', 'delivered', 'opened', 'replied', 'bounced'])),
  );
  expect(sorted(await drawnChart(page, 'Open and reply rates per campaign'))).toEqual(
    sorted(pointsOf(campaigns.campaigns, 'name', ['open_rate', 'reply_rate'])),
  );
  await expect(page.getByText('the outreach provider has no country')).toBeVisible();

  // Web analytics, with a custom window of days in the URL.
  await openReport(page, 'Web analytics');
  await page.getByLabel('Period').selectOption('custom');
  await expect(page).toHaveURL(/from=\d{4}-\d{2}-\d{2}/);
  const from = new URL(page.url()).searchParams.get('from')!;
  const to = new URL(page.url()).searchParams.get('to')!;
  const web = await apiCall('GET', `${REPORTS}/web-analytics?from=${from}&to=${to}&country=NL`, admin);
  expect(sorted(await drawnChart(page, 'Top sources'))).toEqual(
    sorted(pointsOf(web.top_sources, 'source', ['sessions'])),
  );
  expect(sorted(await drawnChart(page, 'Top pages'))).toEqual(sorted(pointsOf(web.top_pages, 'path', ['page_views'])));
  await expectAccessibleInBothThemes(page);

  // A link reproduces the view: the same address in a fresh load draws the same report.
  await page.goto(page.url());
  await expect(page.getByRole('tab', { name: 'Web analytics' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByLabel('First day')).toHaveValue(from);
  await expect(page.getByLabel('Country')).toHaveValue('NL');

  // Mobile subscriptions and social accounts (no country; social has no window either).
  await openReport(page, 'Mobile');
  await expect(page.getByRole('group', { name: 'Mobile subscriptions' })).toContainText('Installs');
  await openReport(page, 'Social');
  await page.getByRole('heading', { level: 2, name: 'Social accounts' }).waitFor();
  const social = await apiCall('GET', `${REPORTS}/social`, admin);
  const read = social.accounts
    .filter((a: { followers: number | null }) => a.followers !== null)
    .map((a: { network: string; handle: string; followers: number }) => ({
      ...a,
      account: `${a.network} ${a.handle}`,
    }));
  expect(sorted(await drawnChart(page, 'Followers per account'))).toEqual(
    sorted(pointsOf(read, 'account', ['followers'])),
  );
  await expectAccessibleInBothThemes(page);
});

test('a brand admin reads their own client’s KPIs; the analytics providers are “not configured” for one client', async ({
  page,
}) => {
  await signIn(page, brand.admin, '/console/');
  await expect(navLink(page, 'Reports')).toBeVisible();
  await expect(navLink(page, 'System')).toHaveCount(0);
  await navLink(page, 'Reports').click();
  await expect(page.getByText('Your client’s figures.')).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'KPIs' })).toBeVisible();

  // The KPIs are the client's own (its one finished job), drawn as the API answers the same user.
  const token = await loginToken(brand.admin);
  const kpis = await apiCall('GET', `${REPORTS}/kpis?period=last_30_days`, token);
  expect(kpis.totals.jobs_completed).toBe(1);
  const byStatus = Object.entries(kpis.totals.jobs_by_status as Record<string, number>).map(([status, jobs]) => ({
    status,
    jobs,
  }));
  expect(sorted(await drawnChart(page, 'Maps-scrape jobs by status'))).toEqual(
    sorted(pointsOf(byStatus, 'status', ['jobs'])),
  );
  expect(sorted(await drawnChart(page, 'Jobs completed per day'))).toEqual(
    sorted(pointsOf(kpis.daily, 'date', ['jobs_completed'])),
  );
  expect(sorted(await drawnChart(page, 'Businesses found per day'))).toEqual(
    sorted(pointsOf(kpis.daily, 'date', ['businesses_found'])),
  );
  await expectAccessibleInBothThemes(page);

  // The providers serve the platform's view only: for one client each says so in words, with no chart of zeros.
  for (const tab of ['Product analytics', 'Campaigns', 'Web analytics', 'Mobile']) {
    await openReport(page, tab);
    await expect(page.getByRole('status').filter({ hasText: 'Not configured' })).toBeVisible();
    await expect(page.locator('figure[data-chart]')).toHaveCount(0);
  }
  const product = await apiCall('GET', `${REPORTS}/product-analytics-metrics`, token);
  expect(product.source_status).toBe('not_configured');
  await expectAccessibleInBothThemes(page);

  // The System page is not theirs: refused by its address, and its logs by the API.
  await page.goto('/console/system');
  await expect(page.getByText(/Not allowed: this page is for super admins/)).toBeVisible();
  const logs = await fetch(`${process.env.E2E_BASE_URL}${REPORTS}/logs`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(logs.status).toBe(403);
});

test('a client user sees neither reports nor system: no navigation, “Not allowed” by address, 403 from the API', async ({
  page,
}) => {
  await signIn(page, tenant.user, '/console/');
  await expect(navLink(page, 'Jobs')).toBeVisible();
  await expect(navLink(page, 'Reports')).toHaveCount(0);
  await expect(navLink(page, 'System')).toHaveCount(0);
  await page.goto('/console/reports');
  await expect(page.getByText(/Not allowed: this page is for super admins and brand admins/)).toBeVisible();
  await page.goto('/console/system');
  await expect(page.getByText(/Not allowed: this page is for super admins/)).toBeVisible();
  const token = await loginToken(tenant.user);
  for (const path of [`${REPORTS}/kpis`, `${REPORTS}/web-analytics`, `${REPORTS}/logs`]) {
    const res = await fetch(`${process.env.E2E_BASE_URL}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, path).toBe(403);
  }
});

test('the reports at a phone’s width: no page scroll sideways, the charts drawn', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, SUPER_ADMIN, '/console/reports?view=product&period=last_7_days');
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible();
  await drawnChart(page, 'Events by category');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleInBothThemes(page);
});

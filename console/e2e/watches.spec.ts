import { CronExpressionParser } from 'cron-parser';
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

const WATCHES = '/api/v1/dashboard/client/watches';
/** A small maps-scrape (one location of Luxembourg, from the sandbox maps provider the worker runs). */
const SMALL_MAPS = { query: 'bakery', country_code: 'LU', max_locations: 1 };

/** The times the page shows: the browser's locale and zone (playwright.config: en-GB, Europe/Amsterdam). */
const shown = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'Europe/Amsterdam',
});

let tenant: Tenant;
test.beforeAll(async () => {
  tenant = await createTenant('Watches');
});

test('a watch with a cron and a time zone: its next runs previewed before saving, then scheduled as previewed', async ({
  page,
}) => {
  await signIn(page, tenant.user, '/console/watches');
  await expect(navLink(page, 'Watches')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByText('No watches yet')).toBeVisible();
  await expectAccessibleInBothThemes(page);

  await page.getByRole('link', { name: 'New watch' }).click();
  await expect(page.getByRole('heading', { name: 'New watch', level: 1 })).toBeVisible();
  await page.getByLabel('Name').fill('Bakeries at New York opening time');
  await page.getByLabel('Search for').fill('bakery');
  await expect(page.getByLabel('Country').locator('option[value="LU"]')).toBeAttached();
  await page.getByLabel('Country').selectOption('LU');
  await page.getByLabel('Most locations').fill('1');
  await page.getByLabel('A cron expression').check();
  const cron = '30 9 * * MON-FRI';
  const zone = 'America/New_York';
  await page.getByRole('textbox', { name: 'Cron expression' }).fill(cron);
  await page.getByLabel('Time zone').selectOption(zone);

  // The same runs, computed here for the same zone, written as the page writes them (the user's locale and zone).
  const expected = CronExpressionParser.parse(cron, { tz: zone, currentDate: new Date() })
    .take(5)
    .map((d) => shown.format(d.toDate()));
  const preview = page.getByRole('list', { name: 'Next runs preview' }).locator('time');
  await expect(preview).toHaveText(expected);
  await expect(page.getByTestId('cadence-words')).toHaveText(/09:30.*Monday through Friday.*America\/New_York/);
  await expectAccessibleInBothThemes(page);

  await page.getByRole('button', { name: 'Create the watch' }).click();
  await expect(page.getByRole('heading', { name: 'Bakeries at New York opening time', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/console\/watches\/[0-9a-f-]{36}$/);
  // Temporal's schedule runs at the times the preview showed.
  await expect(page.getByRole('list', { name: 'Next runs' }).locator('time')).toHaveText(expected);
  await expect(page.getByText('No runs yet')).toBeVisible();
  // The "created" toast goes first: sonner's richColors success toast is below AA contrast (the foundation's
  // Toaster, reported to the lead), and this journey checks the watch's page.
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0, { timeout: 15_000 });
  await expectAccessibleInBothThemes(page);

  const listed = await apiCall('GET', WATCHES, tenant.triple);
  expect(listed.watches).toEqual([
    expect.objectContaining({
      name: 'Bakeries at New York opening time',
      cadence: { cron, time_zone: zone },
      maps_scrape: SMALL_MAPS,
    }),
  ]);
  await apiCall('DELETE', `${WATCHES}/${listed.watches[0].watch_id}`, tenant.triple);
});

test('pause and resume, run now and see the run live with its new leads, too soon again, delete', async ({ page }) => {
  const own = await createTenant('Watch runs');
  const watch = await apiCall('POST', WATCHES, own.triple, {
    name: 'Daily bakeries',
    maps_scrape: SMALL_MAPS,
    cadence: { interval_seconds: 86_400 },
  });
  await signIn(page, own.user, `/console/watches/${watch.watch_id}`);
  await expect(page.getByRole('heading', { name: 'Daily bakeries', level: 1 })).toBeVisible();

  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByText('Paused', { exact: true })).toBeVisible();
  await expect(page.getByText('None while the watch is paused.')).toBeVisible();
  expect((await apiCall('GET', `${WATCHES}/${watch.watch_id}`, own.triple)).state).toBe('paused');
  // The list's state filter lives in the URL.
  await page.getByRole('link', { name: 'Watches', exact: true }).first().click();
  await page.getByLabel('State').selectOption('active');
  await expect(page).toHaveURL(/state=active/);
  await expect(page.getByText('No active watches')).toBeVisible();
  await page.getByLabel('State').selectOption('paused');
  await expect(page).toHaveURL(/state=paused/);
  await page.getByRole('link', { name: 'Daily bakeries' }).click();

  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.getByText('Active', { exact: true })).toBeVisible();
  expect((await apiCall('GET', `${WATCHES}/${watch.watch_id}`, own.triple)).state).toBe('active');

  // Run now: the run appears without a reload, and its new-lead count when it ends.
  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  const runs = page.getByRole('table', { name: 'Runs' });
  await expect(runs.locator('tbody tr[data-row-id]')).toHaveCount(1);
  const newLeads = runs.getByRole('link', { name: /^\d+ new leads?$/ });
  await expect(newLeads).toBeVisible({ timeout: 60_000 });
  const [run] = (await apiCall('GET', `${WATCHES}/${watch.watch_id}/runs`, own.triple)).runs;
  expect(run.new_leads_count).toBeGreaterThan(0);
  await expect(newLeads).toHaveText(`${run.new_leads_count} new lead${run.new_leads_count === 1 ? '' : 's'}`);
  await expect(newLeads).toHaveAttribute('href', `/console/jobs/${run.job_id}?type=maps-scrape&page=1`);
  // The link opens the run's job, whose page lists what it found.
  await newLeads.click();
  await expect(page).toHaveURL(new RegExp(`/console/jobs/${run.job_id}\\?`));
  await expect(page.getByRole('table', { name: 'Businesses found' })).toBeVisible();
  await page.goBack();

  // Again at once: refused, in words, with when it may run again.
  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Too soon to run this watch again' })).toContainText(
    /It can run again in \d+ (minutes?|hours?), at /,
  );

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete “Daily bakeries”?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Delete the watch' }).click();
  await expect(page).toHaveURL(/\/console\/watches$/);
  await expect(page.getByText('No watches yet')).toBeVisible();
  expect((await apiCall('GET', WATCHES, own.triple)).total).toBe(0);
});

test('the watches pages at phone width (390 px): no page-wide horizontal scroll', async ({ page }) => {
  const own = await createTenant('Watch phone');
  const watch = await apiCall('POST', WATCHES, own.triple, {
    name: 'Phone bakeries',
    maps_scrape: SMALL_MAPS,
    cadence: { cron: '0 7 * * MON', time_zone: 'Europe/Amsterdam' },
  });
  await signIn(page, own.user, '/console/watches');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('link', { name: 'Phone bakeries' })).toBeVisible();
  const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
  expect(await pageWidth()).toBeLessThanOrEqual(390);
  await page.getByRole('link', { name: 'Phone bakeries' }).click();
  await expect(page.getByRole('heading', { name: 'Phone bakeries', level: 1 })).toBeVisible();
  expect(await pageWidth()).toBeLessThanOrEqual(390);
  await page.goto('/console/watches/new');
  await expect(page.getByRole('heading', { name: 'New watch', level: 1 })).toBeVisible();
  expect(await pageWidth()).toBeLessThanOrEqual(390);
  await apiCall('DELETE', `${WATCHES}/${watch.watch_id}`, own.triple);
});

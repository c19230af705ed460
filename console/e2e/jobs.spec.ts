import {
  SUPER_ADMIN,
  apiCall,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  signIn,
  test,
  type Tenant,
} from './support/fixtures';
import type { Page } from '@playwright/test';

const SUBMIT = '/api/v1/dashboard/client/jobs/maps-scrape/submit';
const jobStatus = (id: string) => `/api/v1/dashboard/client/jobs/${id}/status`;

let tenant: Tenant;
test.beforeAll(async () => {
  tenant = await createTenant('Jobs');
});

/** The row of the jobs table whose link names the job. */
const jobRow = (page: Page, title: string) =>
  page.getByRole('table', { name: 'Maps scrape jobs' }).getByRole('row').filter({ hasText: title });

/** A mark on the page's window: still there later means the page was never reloaded in between. */
async function markPage(page: Page) {
  await page.evaluate(() => Object.assign(window, { __notReloaded: true }));
}
const stillSamePage = (page: Page) =>
  page.evaluate(() => (window as { __notReloaded?: boolean }).__notReloaded === true);

/** A maps-scrape job submitted through the API, as a test sets the scene; the sandbox answers each search late. */
async function slowMapsJob(t: Tenant, query: string, slowMs: number, maxLocations: number) {
  const job = await apiCall('POST', SUBMIT, t.triple, {
    query: `${query} sbx-slow-${slowMs}`,
    country_code: 'NL',
    region_codes: ['NL-ZE'],
    max_locations: maxLocations,
  });
  return job.job_id as string;
}

test('a client_user submits a maps-scrape job through the form, sees it go queued to completed live, reads and exports its results', async ({
  page,
}) => {
  await signIn(page, tenant.user, '/console/jobs');
  await expect(page.getByRole('heading', { level: 1, name: 'Jobs' })).toBeVisible();
  await expect(page.getByText('No maps-scrape jobs yet')).toBeVisible();
  await markPage(page);

  await page.getByRole('button', { name: 'Maps-scrape job' }).click();
  const dialog = page.getByRole('dialog', { name: 'Submit a maps-scrape job' });
  // The pickers are fed by the locations operations; the bounds by the client's usage.
  const usage = await apiCall('GET', '/api/v1/dashboard/client/usage', tenant.triple);
  await expect(dialog.getByTestId('bound-today')).toContainText(`${usage.jobs.per_day.used} of`);
  await dialog.getByLabel('Search for').fill('bakery sbx-slow-1200');
  await dialog.getByLabel('Country').selectOption('NL');
  await dialog.getByRole('checkbox', { name: /^Utrecht/ }).check();
  await expect(dialog.getByTestId('bound-locations')).toContainText('the area has 86');
  await dialog.getByLabel('Max locations').fill('2');
  await expect(dialog.getByTestId('bound-locations')).toContainText('at most 2');
  // The call the form makes, with its Idempotency-Key.
  await dialog.getByRole('button', { name: 'Show the API call: submitMapsScrapeJob' }).click();
  const callDialog = page.getByRole('dialog', { name: 'The API call' });
  await expect(callDialog.getByLabel('curl command', { exact: true })).toContainText('Idempotency-Key: ');
  await expect(callDialog.getByLabel('curl command', { exact: true })).toContainText('"max_locations":2');
  await callDialog.getByRole('button', { name: 'Close' }).click();

  const submitted = page.waitForResponse((r) => r.url().endsWith(SUBMIT) && r.request().method() === 'POST');
  await dialog.getByRole('button', { name: 'Submit job' }).click();
  const answer = await submitted;
  expect(answer.status()).toBe(200);
  expect(answer.request().headers()['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  const jobId = (await answer.json()).job_id as string;
  await expect(dialog).toBeHidden();

  const row = jobRow(page, 'bakery sbx-slow-1200 in NL (NL-UT)');
  // Not yet done: queued, or already processing its first location.
  await expect(row.locator('[data-job-status]')).toHaveAttribute('data-job-status', /queued|processing/);
  await expect(row.locator('[data-job-status]')).toHaveAttribute('data-job-status', 'completed', { timeout: 60_000 });
  await expect(row.getByRole('progressbar')).toHaveAttribute('aria-valuetext', '2 of 2');
  expect(await stillSamePage(page)).toBe(true);

  const status = await apiCall('GET', jobStatus(jobId), tenant.triple);
  expect(status.results_count).toBeGreaterThan(0);
  await row.getByRole('link', { name: 'bakery sbx-slow-1200 in NL (NL-UT)' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/jobs/${jobId}\\?type=maps-scrape`));
  const timeline = page.getByRole('list', { name: 'Timeline' });
  await expect(timeline).toContainText('Queued');
  await expect(timeline).toContainText('Started');
  await expect(timeline).toContainText(`Completed`);
  await expect(timeline).toContainText(`${status.results_count} results`);
  const results = page.getByRole('table', { name: 'Businesses found' });
  const first = (await apiCall('GET', `/api/v1/dashboard/client/jobs/${jobId}/results?page_size=50`, tenant.triple))
    .results[0];
  await expect(results.getByRole('row').filter({ hasText: first.name }).first()).toBeVisible();
  await expect(page.getByText(`${status.results_count} results`, { exact: false }).last()).toBeVisible();

  // The export is the API's own CSV of the whole set, through the session cookie.
  const csvLink = page.getByRole('link', { name: 'Export CSV' });
  const href = await csvLink.getAttribute('href');
  expect(href).toBe(`/api/v1/dashboard/client/jobs/${jobId}/results?format=csv`);
  const csv = await page.request.get(href!);
  expect(csv.status()).toBe(200);
  expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
  const lines = (await csv.text()).trimEnd().split('\n');
  expect(lines[0]).toMatch(/^idap_ref,name,/);
  expect(lines).toHaveLength(status.results_count + 1);
  expect(lines.some((l) => l.includes(first.idap_ref))).toBe(true);
  await expect(page.getByRole('link', { name: 'Export JSON Lines' })).toHaveAttribute(
    'href',
    `/api/v1/dashboard/client/jobs/${jobId}/results?format=jsonl`,
  );
  // A client_user is no operator: no link to the run in the Temporal UI.
  await expect(page.getByRole('link', { name: 'Run in Temporal UI' })).toHaveCount(0);
});

test('the type and status filters and the page live in the URL: a link reproduces the view and Back returns', async ({
  page,
}) => {
  const t = await createTenant('Jobs filters');
  const done = await slowMapsJob(t, 'florist', 0, 1);
  await expect
    .poll(async () => (await apiCall('GET', jobStatus(done), t.triple)).status, { timeout: 60_000 })
    .toBe('completed');
  await signIn(page, t.user, '/console/jobs');
  await page.getByLabel('Status').selectOption('failed');
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.getByText('No failed maps-scrape jobs')).toBeVisible();
  await page.goBack();
  await expect(page).not.toHaveURL(/status=failed/);
  await expect(jobRow(page, 'florist sbx-slow-0')).toBeVisible();
  await page.goto('/console/jobs?type=maps-scrape&status=completed&page=1&page_size=50');
  await expect(page.getByLabel('Per page')).toHaveValue('50');
  await expect(page.getByLabel('Status')).toHaveValue('completed');
  await expect(jobRow(page, 'florist sbx-slow-0')).toBeVisible();
  await page.getByLabel('Type').selectOption('research');
  await expect(page).toHaveURL(/type=research/);
  await expect(page).not.toHaveURL(/status=/);
  await expect(page.getByRole('table', { name: 'Research jobs' })).toBeVisible();
  await expect(page.getByText('No research jobs yet')).toBeVisible();
});

test('a client_user cancels a running maps-scrape job from its page', async ({ page }) => {
  const jobId = await slowMapsJob(tenant, 'tailor', 3000, 20);
  await signIn(page, tenant.user, `/console/jobs/${jobId}?type=maps-scrape`);
  const badge = page.locator('main [data-job-status]').first();
  await expect(badge).toHaveAttribute('data-job-status', 'processing', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Show the API call: cancelJob' }).click();
  await expect(
    page.getByRole('dialog', { name: 'The API call' }).getByLabel('curl command', { exact: true }),
  ).toContainText(`/api/v1/dashboard/client/jobs/${jobId}/cancel`);
  await page.getByRole('dialog', { name: 'The API call' }).getByRole('button', { name: 'Close' }).click();
  const cancelled = page.waitForResponse((r) => r.url().endsWith(`/jobs/${jobId}/cancel`));
  await page.getByRole('button', { name: 'Cancel job' }).click();
  expect((await cancelled).status()).toBe(200);
  await expect(badge).toHaveAttribute('data-job-status', 'cancelled');
  await expect(page.getByRole('list', { name: 'Timeline' })).toContainText('Cancelled');
  await expect(page.getByRole('button', { name: 'Cancel job' })).toHaveCount(0);
  // The job.failed event (status cancelled) arrives on the stream while the page is open.
  await expect(page.getByRole('list', { name: 'Live events' })).toContainText('job.failed cancelled');
  expect((await apiCall('GET', jobStatus(jobId), tenant.triple)).status).toBe('cancelled');
});

test('a client_user pauses and resumes a running research job, then cancels it', async ({ page }) => {
  const companies = Array.from({ length: 40 }, (_, i) => ({
    name: `Slow Bakery ${i}`,
    domain: `slow-bakery-${i}-sbx-slow-1500.example`,
  }));
  const job = await apiCall('POST', '/api/v1/dashboard/client/research/submit', tenant.triple, { companies });
  const id = job.research_id as string;
  await signIn(page, tenant.user, `/console/jobs/${id}?type=research`);
  const badge = page.locator('main [data-job-status]').first();
  await expect(badge).toHaveAttribute('data-job-status', 'running', { timeout: 30_000 });

  const paused = page.waitForResponse((r) => r.url().endsWith(`/research/${id}/pause`));
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  expect((await paused).status()).toBe(200);
  await expect(badge).toHaveAttribute('data-job-status', 'paused');
  await expect(page.getByRole('list', { name: 'Timeline' })).toContainText('Paused');
  expect((await apiCall('GET', `/api/v1/dashboard/client/research/${id}/status`, tenant.triple)).status).toBe('paused');

  const resumed = page.waitForResponse((r) => r.url().endsWith(`/research/${id}/resume`));
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  expect((await resumed).status()).toBe(200);
  await expect(badge).toHaveAttribute('data-job-status', 'running');
  await expect(page.getByRole('button', { name: 'Show the API call: pauseResearchJob' })).toBeVisible();

  await page.getByRole('button', { name: 'Cancel job' }).click();
  await expect(badge).toHaveAttribute('data-job-status', 'cancelled');
  expect((await apiCall('GET', `/api/v1/dashboard/client/research/${id}/status`, tenant.triple)).status).toBe(
    'cancelled',
  );
});

test('a client_user submits a research job for listed companies through the form', async ({ page }) => {
  await signIn(page, tenant.user, '/console/jobs?type=research');
  await page.getByRole('button', { name: 'Research job' }).click();
  const dialog = page.getByRole('dialog', { name: 'Submit a research job' });
  await dialog.getByRole('button', { name: 'Submit job' }).click();
  await expect(dialog.getByText('List 1 to 500 companies, one per line')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Companies' }).fill('Bakkerij de Zon, dezon.example\nBakkerij Noord');
  const submitted = page.waitForResponse((r) => r.url().endsWith('/research/submit'));
  await dialog.getByRole('button', { name: 'Submit job' }).click();
  const answer = await submitted;
  expect(answer.status()).toBe(200);
  expect(JSON.parse(answer.request().postData()!)).toEqual({
    companies: [{ name: 'Bakkerij de Zon', domain: 'dezon.example' }, { name: 'Bakkerij Noord' }],
  });
  const row = page
    .getByRole('table', { name: 'Research jobs' })
    .getByRole('row')
    .filter({ hasText: '2 listed companies' });
  await expect(row.first()).toBeVisible();
});

test('a super_admin acting for the client sees the run in the Temporal UI; the client_user does not', async ({
  page,
}) => {
  const jobId = await slowMapsJob(tenant, 'cobbler', 0, 1);
  await signIn(page, SUPER_ADMIN, '/console/jobs');
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  await expect(jobRow(page, 'cobbler sbx-slow-0 in NL (NL-ZE)')).toBeVisible();
  await jobRow(page, 'cobbler sbx-slow-0 in NL (NL-ZE)').getByRole('link').click();
  const info = await apiCall('GET', '/api/v1/system/info', tenant.triple);
  const link = page.getByRole('link', { name: 'Run in Temporal UI' });
  await expect(link).toHaveAttribute(
    'href',
    `${info.temporal.ui_url}/namespaces/${info.temporal.namespace}/workflows/${jobId}`,
  );
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, tenant.user, `/console/jobs/${jobId}?type=maps-scrape`);
  await expect(page.getByRole('heading', { level: 1, name: 'cobbler sbx-slow-0 in NL (NL-ZE)' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Run in Temporal UI' })).toHaveCount(0);
});

test('the jobs list, the submit dialogs and a job page pass axe in both themes, and fit a 390 px phone', async ({
  page,
}) => {
  const jobId = await slowMapsJob(tenant, 'baker', 0, 1);
  await expect
    .poll(async () => (await apiCall('GET', jobStatus(jobId), tenant.triple)).status, { timeout: 60_000 })
    .toBe('completed');
  await signIn(page, tenant.user, '/console/jobs');
  await expect(jobRow(page, 'baker sbx-slow-0').first()).toBeVisible();
  await expectAccessibleInBothThemes(page);

  await page.getByRole('button', { name: 'Maps-scrape job' }).click();
  const dialog = page.getByRole('dialog', { name: 'Submit a maps-scrape job' });
  await dialog.getByLabel('Country').selectOption('NL');
  await expect(dialog.getByRole('checkbox', { name: /^Utrecht/ })).toBeVisible();
  await expect(dialog.getByTestId('bound-month')).toBeVisible();
  await expectAccessibleInBothThemes(page);
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: 'Research job' }).click();
  await expect(page.getByRole('dialog', { name: 'Submit a research job' })).toBeVisible();
  await expectAccessibleInBothThemes(page);
  await page.keyboard.press('Escape');

  await page.goto(`/console/jobs/${jobId}?type=maps-scrape`);
  await expect(page.getByRole('table', { name: 'Businesses found' })).toBeVisible();
  await expectAccessibleInBothThemes(page);

  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ['/console/jobs', `/console/jobs/${jobId}?type=maps-scrape`]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('table').first()).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  }
});

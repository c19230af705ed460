import { randomBytes } from 'node:crypto';
import {
  SUPER_ADMIN,
  adminToken,
  apiCall,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  test,
} from './support/fixtures';

/** A line of the service's own log: a request for an address the API has not (a 404 is logged as a warning). */
async function logAMissingRoute(marker: string) {
  const res = await fetch(`${process.env.E2E_BASE_URL}/api/v1/${marker}`, {
    headers: { authorization: `Bearer ${await adminToken()}` },
  });
  expect(res.status).toBe(404);
}

test('a super admin sees each engine’s health in words, the service’s information, queues with links to the Temporal UI, and credential health', async ({
  page,
}) => {
  await signIn(page, SUPER_ADMIN, '/console/');
  await navLink(page, 'System').click();
  await expect(page.getByRole('heading', { level: 1, name: 'System' })).toBeVisible();

  // Health: every engine by name, its state written out (not colour alone).
  const engines = page.getByRole('list', { name: 'Engines' });
  for (const engine of ['API', 'MongoDB', 'Redis', 'Temporal'])
    await expect(engines.getByRole('listitem').filter({ hasText: engine })).toContainText('Up');
  await expect(page.getByText('Every engine is up.')).toBeVisible();

  // Information, as the API answers it.
  const admin = await adminToken();
  const info = await apiCall('GET', '/api/v1/system/info', admin);
  await expect(page.getByText(`${info.name} ${info.version}`)).toBeVisible();
  await expect(
    page.getByText(`namespace ${info.temporal.namespace} · task queue ${info.temporal.task_queue}`),
  ).toBeVisible();

  // The Temporal UI: the namespace's runs and schedules, and each task queue's runs.
  expect(info.temporal.ui_url).toBeTruthy();
  const ui = `${String(info.temporal.ui_url).replace(/\/$/, '')}/namespaces/${info.temporal.namespace}`;
  const temporal = page.getByRole('navigation', { name: 'Temporal UI' });
  await expect(temporal.getByRole('link', { name: /Every run/ })).toHaveAttribute('href', `${ui}/workflows`);
  await expect(temporal.getByRole('link', { name: /Every schedule/ })).toHaveAttribute('href', `${ui}/schedules`);
  await expect(temporal.getByRole('link', { name: /Running now/ })).toHaveAttribute(
    'href',
    `${ui}/workflows?query=${encodeURIComponent('ExecutionStatus="Running"')}`,
  );
  const stats = await apiCall('GET', '/api/v1/system/queue-stats', admin);
  expect(stats.scope).toBe('platform');
  const queues = page.getByRole('region', { name: 'Task queues' });
  const link = (name: string) => queues.getByRole('link', { name: `${name} (opens in a new tab)`, exact: true });
  expect(stats.task_queues.length).toBeGreaterThan(0);
  for (const q of stats.task_queues as { name: string; running: Record<string, number> }[]) {
    await expect(link(q.name)).toHaveAttribute(
      'href',
      `${ui}/workflows?query=${encodeURIComponent(`TaskQueue="${q.name}"`)}`,
    );
  }
  // Each workflow type's running runs of a queue. Which types run moves with every other journey's work, so the
  // journey makes a run of its own that keeps running: an access request waits for its decision (24 hours).
  const tenant = await createTenant('System');
  await apiCall('POST', '/api/v1/auth/pat/request', '', {
    client_id: tenant.clientId,
    owner_email: 'dev@system.example.test',
    project_name: 'system-journey',
    requested_scopes: ['jobs:read'],
  });
  const queue = info.temporal.task_queue as string;
  await page.reload();
  const runningRequests = queues
    .getByRole('row')
    // A `has` locator is matched inside each row, so it starts from the page, not from the region.
    .filter({ has: page.getByRole('link', { name: `${queue} (opens in a new tab)`, exact: true }) })
    .getByRole('link', { name: 'accessRequestWorkflow (opens in a new tab)', exact: true });
  await expect(runningRequests).toHaveAttribute(
    'href',
    `${ui}/workflows?query=${encodeURIComponent(`TaskQueue="${queue}" AND WorkflowType="accessRequestWorkflow" AND ExecutionStatus="Running"`)}`,
  );

  // Credential health in words (the count of clients moves as other journeys add theirs).
  const credentials = await apiCall('GET', '/api/v1/system/credential-health', admin);
  expect(credentials.status).toBe('ok');
  await expect(page.getByText(/^OK$/)).toBeVisible();
  await expect(page.getByText(/0 of [\d,]+ active clients lack their encrypted credential copy/)).toBeVisible();
  await expectAccessibleInBothThemes(page);
});

test('the logs: filters in the URL, and “follow” adds new lines as they are logged, each once', async ({ page }) => {
  const marker = `console-follow-${randomBytes(4).toString('hex')}`;
  await logAMissingRoute(`${marker}-first`);
  await signIn(page, SUPER_ADMIN, '/console/system');
  await page.getByLabel('Text').fill(marker);
  await page.getByLabel('Container').fill('api');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`search=${marker}`));
  await expect(page).toHaveURL(/container=api/);
  await page.getByLabel('Lowest level').selectOption('warn');
  await expect(page).toHaveURL(/level=warn/);
  await page.getByLabel('Minutes back').selectOption('60');
  await expect(page).toHaveURL(/minutes=60/);

  const lines = page.getByRole('log', { name: 'Log lines' }).locator('[data-log-line]');
  await expect(lines).toHaveCount(1);
  await expect(lines.first()).toContainText(`${marker}-first`);
  await expect(lines.first()).toContainText('warn');

  // The same view by its address (a link reproduces it).
  await page.goto(page.url());
  await expect(page.getByLabel('Text')).toHaveValue(marker);
  await expect(lines).toHaveCount(1);

  // Follow: a new line appears without a reload, above the first, and no line twice.
  await page.getByRole('checkbox', { name: 'Follow new lines' }).check();
  await expect(page).toHaveURL(/follow=true/);
  await page.evaluate(() => Object.assign(window, { __notReloaded: true }));
  await logAMissingRoute(`${marker}-second`);
  await expect(lines).toHaveCount(2);
  await expect(lines.first()).toContainText(`${marker}-second`);
  await expect(lines.nth(1)).toContainText(`${marker}-first`);
  // Several more reads of the same lines (the list is re-read every 2 s) keep each line once.
  await page.waitForResponse((r) => r.url().includes('/admin/logs'));
  await page.waitForResponse((r) => r.url().includes('/admin/logs'));
  await expect(lines).toHaveCount(2);
  expect(await page.evaluate(() => (window as { __notReloaded?: boolean }).__notReloaded)).toBe(true);

  // Unfollowed, the list is the API's answer again; the filters' API call is shown.
  await page.getByRole('checkbox', { name: 'Follow new lines' }).uncheck();
  await expect(page).toHaveURL(/follow=false/);
  await expectAccessibleInBothThemes(page);
});

test('the system page at a phone’s width: no page scroll sideways', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, SUPER_ADMIN, '/console/system');
  await expect(page.getByRole('heading', { level: 1, name: 'System' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Engines' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Task queues' })).toBeVisible();
  await expect(page.getByRole('log', { name: 'Log lines' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleInBothThemes(page);
});

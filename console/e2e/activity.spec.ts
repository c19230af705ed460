import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import {
  SUPER_ADMIN,
  apiCall,
  createBrandWithAdmin,
  createTenant,
  drawnChart,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  test,
  type Tenant,
  loginToken,
} from './support/fixtures';

const base = () => process.env.E2E_BASE_URL!;

/**
 * Activity as the tenant's user makes it, through the API with their own session: a post written and published
 * (shipped) and the webhook secret rotated. Answers the post's title.
 */
async function workAsUser(tenant: Tenant): Promise<string> {
  const token = await loginToken(tenant.user);
  const suffix = randomBytes(3).toString('hex');
  const title = `Opening hours ${suffix}`;
  const post = await apiCall('POST', '/api/v1/dashboard/content/posts', token, {
    slug: `opening-hours-${suffix}`,
    title,
    body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Open on Sundays.' }] }] },
  });
  await apiCall('POST', `/api/v1/dashboard/content/posts/${post.id}/publish`, token);
  await apiCall('POST', '/api/v1/dashboard/webhook-secret/rotate', token);
  return title;
}

interface ShiftRow {
  actor_id: string;
  actor_name: string | null;
  started_at: string;
  ended_at: string;
  shipped_count: number;
  event_count: number;
}

/**
 * The user's shift once the worker has moved all of workAsUser's recorded activity into the store (listShifts with
 * the triple): its three writes counted and the publish shipped, so that the shift's figures no longer move while a
 * journey compares the page with the API.
 */
async function userShift(tenant: Tenant, query = ''): Promise<ShiftRow> {
  let found: ShiftRow | undefined;
  await expect
    .poll(
      async () => {
        const list = await apiCall('GET', `/api/v1${query}`, tenant.triple);
        found = (list.shifts as ShiftRow[]).find(
          (s) => s.actor_name === tenant.user.email && s.shipped_count > 0 && s.event_count >= 3,
        );
        return Boolean(found);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return found!;
}

async function csvOf(page: Page, click: () => Promise<void>) {
  const download = page.waitForEvent('download');
  await click();
  return readFile((await (await download).path())!, 'utf8');
}

async function csvFromApi(tenant: Tenant, query: string) {
  const res = await fetch(`${base()}/api/v1/export.csv${query}`, {
    headers: { authorization: `Bearer ${tenant.triple}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

test("a brand admin sees their client's shifts, a shift's hours drawn from the API's figures, the CSV, the digest and anomalies", async ({
  page,
}) => {
  const tenant = await createTenant('Activity', { contentDomain: true });
  const brand = await createBrandWithAdmin(tenant);
  const title = await workAsUser(tenant);
  const shift = await userShift(tenant);

  await signIn(page, brand.admin, '/console/activity');
  await expect(navLink(page, 'Activity')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: 'Shifts' });
  const row = table.getByRole('row').filter({ hasText: tenant.user.email });
  await expect(row).toBeVisible();
  await expect(row).toContainText('Client user');
  await expectAccessibleInBothThemes(page);

  // Filters in the URL, answered by the API.
  await page.getByLabel('Role').selectOption({ label: 'Client user' });
  await expect(page).toHaveURL(/role=client_user/);
  await page.getByLabel('Gap (minutes)').fill('5');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(page).toHaveURL(/gap_minutes=5/);
  await expect(page.getByText(/a pause over 5 minutes splitting them/)).toBeVisible();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: `Only ${tenant.user.email}` }).click();
  await expect(page).toHaveURL(new RegExp(`actor_id=${shift.actor_id}`));
  await expect(page.getByRole('button', { name: `Show every actor (now only ${tenant.user.email})` })).toBeVisible();

  // The CSV: a plain link to the API's export of the same view, downloaded as the API makes it.
  const exportLink = page.getByRole('link', { name: 'Export CSV' });
  const href = (await exportLink.getAttribute('href'))!;
  expect(href).toContain('/api/v1/export.csv?');
  expect(href).toContain('role=client_user');
  expect(href).toContain(`actor_id=${shift.actor_id}`);
  const downloaded = await csvOf(page, () => exportLink.click());
  expect(downloaded).toBe(await csvFromApi(tenant, href.slice('/api/v1/export.csv'.length)));
  expect(downloaded).toContain(tenant.user.email);

  // A shift: its hours drawn as the API's histogram, and what it shipped.
  // Compared with the API's answer to the page's own read: the user's shift may still grow by a late-drained event
  // (its login) between the journey's read of the list and the page's.
  const detailRead = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/detail' && r.ok());
  await row.getByRole('button', { name: `${tenant.user.email} user`, exact: true }).click();
  await expect(page).toHaveURL(/shift_actor=/);
  const panel = page.getByRole('dialog', { name: 'Shift' });
  const detail = await (await detailRead).json();
  expect(detail.actor_id).toBe(shift.actor_id);
  const drawn = await drawnChart(page, 'Activity per hour');
  const fromApi = (detail.hourly as { hour: string; events: number; shipped: number }[]).flatMap((h) => [
    { category: h.hour, series: 'events', value: h.events },
    { category: h.hour, series: 'shipped', value: h.shipped },
  ]);
  const key = (p: { category: string; series: string; value: number }) => `${p.category} ${p.series} ${p.value}`;
  // Every drawn mark is one of the API's figures, and every figure above zero is drawn.
  expect(drawn.map(key).filter((k) => !fromApi.map(key).includes(k))).toEqual([]);
  expect(drawn.map(key).sort()).toEqual(expect.arrayContaining(fromApi.filter((p) => p.value > 0).map(key)));
  expect(fromApi.some((p) => p.series === 'shipped' && p.value > 0)).toBe(true);
  await expect(panel.getByText('Posts published (1)')).toBeVisible();
  await expect(panel.getByText(title)).toBeVisible();
  await expectAccessibleInBothThemes(page);
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(page).not.toHaveURL(/shift_actor=/);

  // The digest: off, then daily, with the next digest's time the API answers.
  await page.getByRole('tab', { name: 'Digest' }).click();
  await expect(page).toHaveURL(/tab=digest/);
  await expect(page.getByTestId('next-digest')).toHaveText('None while the digest is off');
  await page.getByLabel('Send the digest').selectOption('daily');
  const saved = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/digest-settings') && r.request().method() === 'PATCH',
  );
  await page.getByRole('button', { name: 'Save cadence' }).click();
  expect((await saved).status()).toBe(200);
  const settings = await apiCall('GET', '/api/v1/digest-settings', tenant.triple);
  expect(settings.cadence).toBe('daily');
  expect(settings.next_due_at).not.toBeNull();
  await expect(page.getByTestId('next-digest').locator('time')).toHaveAttribute('datetime', settings.next_due_at);
  await expectAccessibleInBothThemes(page);

  // Anomalies: the API's window and findings, most severe first as it ranks them (today's work is unusual for a
  // client whose 30 days before were empty).
  await page.getByRole('tab', { name: 'Anomalies' }).click();
  const report = await apiCall('GET', '/api/v1/anomalies', tenant.triple);
  await expect(page.getByText(`${report.window_from} to ${report.window_to} against the 30 days before`)).toBeVisible();
  const anomalies = page.getByRole('table', { name: 'Anomalies' });
  expect(report.anomalies.length).toBeGreaterThan(0);
  await expect(anomalies).toHaveAttribute('aria-rowcount', String(report.anomalies.length + 1));
  await expect(anomalies.getByRole('row').nth(1)).toContainText(report.anomalies[0].message);
  await expect(anomalies.getByRole('row').nth(1)).toContainText(report.anomalies[0].severity);
  await expectAccessibleInBothThemes(page);

  // At phone width: no page-wide scroll; the table scrolls in its own region.
  await page.getByRole('tab', { name: 'Shifts' }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row).toBeAttached();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await expectAccessibleInBothThemes(page);
});

test("a super admin acting for a client sees that client's shifts and exports them for it", async ({ page }) => {
  const tenant = await createTenant('Acting activity', { contentDomain: true });
  await workAsUser(tenant);
  const shift = await userShift(tenant);
  const elsewhere = await createTenant('Other activity');

  await signIn(page, SUPER_ADMIN, '/console/activity');
  await expect(page.getByRole('heading', { name: 'Choose a client' })).toBeVisible();
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  const row = page.getByRole('table', { name: 'Shifts' }).getByRole('row').filter({ hasText: tenant.user.email });
  await expect(row).toBeVisible();
  await expect(row).toContainText(new Date(shift.started_at).getUTCFullYear().toString());

  // The export names the client acted for (a link cannot send the header: fetched with it, then downloaded).
  const downloaded = await csvOf(page, () => page.getByRole('link', { name: 'Export CSV' }).click());
  expect(downloaded).toBe(await csvFromApi(tenant, ''));
  expect(downloaded).toContain(tenant.user.email);

  await page.getByRole('tab', { name: 'Digest' }).click();
  await page.getByLabel('Send the digest').selectOption('weekly');
  await page.getByRole('button', { name: 'Save cadence' }).click();
  await expect(page.getByText(/Digest weekly; the next goes out/)).toBeVisible();
  expect((await apiCall('GET', '/api/v1/digest-settings', tenant.triple)).cadence).toBe('weekly');
  expect((await apiCall('GET', '/api/v1/digest-settings', elsewhere.triple)).cadence).toBe('off');

  // Another client: none of the first one's shifts.
  await page.getByRole('tab', { name: 'Shifts' }).click();
  await page.getByLabel('Acting for').selectOption({ label: elsewhere.name });
  const theirs = await apiCall('GET', '/api/v1', elsewhere.triple);
  await expect(page.getByText(`${theirs.total} shifts from ${theirs.from}`)).toBeVisible();
  await expect(page.getByRole('table', { name: 'Shifts' }).getByRole('row')).toHaveCount(theirs.total + 1);
  await expect(page.getByRole('table', { name: 'Shifts' })).not.toContainText(tenant.user.email);
});

test('a client user: no Activity in the navigation and "Not allowed" by address; the API keeps them to their own client', async ({
  page,
}) => {
  const tenant = await createTenant('Activity refused', { contentDomain: true });
  const other = await createTenant('Activity neighbour', { contentDomain: true });
  await workAsUser(other);
  await userShift(other);

  await signIn(page, tenant.user, '/console/');
  await expect(navLink(page, 'Jobs')).toBeVisible();
  await expect(navLink(page, 'Activity')).toHaveCount(0);
  await page.goto('/console/activity');
  await expect(page.getByRole('alert')).toContainText('Not allowed: this page is for super admins and brand admins');
  await expect(page.getByRole('table', { name: 'Shifts' })).toHaveCount(0);

  // Naming another client is ignored for a client user: never the neighbour's shifts.
  const token = await loginToken(tenant.user);
  const res = await fetch(`${base()}/api/v1`, {
    headers: { authorization: `Bearer ${token}`, 'x-selected-client-id': other.clientId },
  });
  const body = (await res.json()) as { shifts?: ShiftRow[] };
  expect(JSON.stringify(body)).not.toContain(other.user.email);
});

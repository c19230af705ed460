import {
  apiStatus,
  createBrandWithAdmin,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  loginToken,
  navLink,
  signIn,
  SUPER_ADMIN,
  test,
  type Tenant,
  type TenantBrand,
} from './support/fixtures';
import type { Page } from '@playwright/test';

/**
 * What each role is shown (issue 50, item 6): the navigation by role, every administration page refused in words
 * to a role that types its address, and the API refusing the same thing to that role's own token, so that hiding
 * is never the only guard.
 */
const WORKSPACE = ['Jobs', 'Leads', 'Watches', 'Content', 'Credentials'];
const ADMINISTRATION = ['Agents', 'Brands', 'Users', 'Activity', 'Reports', 'System'];
const PATHS: Record<string, string> = {
  Agents: '/console/agents',
  Brands: '/console/brands',
  Users: '/console/users',
  Activity: '/console/activity',
  Reports: '/console/reports',
  System: '/console/system',
};

let tenant: Tenant;
let brand: TenantBrand;
test.beforeAll(async () => {
  tenant = await createTenant('Roles');
  brand = await createBrandWithAdmin(tenant, 'Roles');
});

async function expectNavigation(page: Page, shown: string[]) {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link')).toHaveCount(shown.length);
  for (const name of shown) await expect(navLink(page, name)).toBeVisible();
}

async function expectRefusedPage(page: Page, name: string, roleWords: string) {
  await page.goto(PATHS[name]);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Not allowed');
  await expect(alert).toContainText(`you are signed in as a ${roleWords}`);
  await expect(page.getByRole('heading', { level: 1, name })).toHaveCount(0);
}

test('a client user sees the workspace only: every administration page and its API refuse it', async ({ page }) => {
  await signIn(page, tenant.user, '/console/jobs');
  await expectNavigation(page, WORKSPACE);
  await expect(page.getByText('Administration', { exact: true })).toHaveCount(0);
  for (const name of ADMINISTRATION) await expectRefusedPage(page, name, 'client user');
  await expectAccessibleInBothThemes(page);

  const token = await loginToken(tenant.user);
  expect(await apiStatus('GET', '/api/v1/dashboard/users', token)).toBe(403);
  expect(await apiStatus('GET', '/api/v1/dashboard/admin/kpis', token)).toBe(403);
  expect(await apiStatus('GET', '/api/v1/dashboard/admin/logs', token)).toBe(403);
  expect(await apiStatus('GET', '/api/v1/auth/pat/requests', token)).toBe(403);
  // A brand the user is no member of is not there for it at all (404, as another tenant's record is).
  expect(await apiStatus('PATCH', `/api/v1/brands/${brand.brandId}/settings`, token, { default_rate_limit: 5 })).toBe(
    404,
  );
});

test('a brand admin administers its brands, agents, activity and reports, not users or the system', async ({
  page,
}) => {
  await signIn(page, brand.admin, '/console/jobs');
  await expectNavigation(page, [...WORKSPACE, 'Agents', 'Brands', 'Activity', 'Reports']);
  for (const name of ['Users', 'System']) await expectRefusedPage(page, name, 'brand admin');

  const token = await loginToken(brand.admin);
  expect(await apiStatus('GET', '/api/v1/dashboard/users', token)).toBe(403);
  expect(await apiStatus('GET', '/api/v1/dashboard/admin/logs', token)).toBe(403);
  expect(await apiStatus('POST', '/api/v1/dashboard/admin/clients', token, { name: 'Not mine' })).toBe(403);
  expect(await apiStatus('GET', '/api/v1/auth/pat/requests', token)).toBe(200);
});

test('a super admin sees every page, and the administration ones before choosing a client', async ({ page }) => {
  await signIn(page, SUPER_ADMIN, '/console/users');
  await expectNavigation(page, [...WORKSPACE, ...ADMINISTRATION]);
  for (const name of ['Agents', 'Brands', 'Users', 'Reports', 'System']) {
    await navLink(page, name).click();
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Choose a client' })).toHaveCount(0);
  }
  // A client's own activity needs the client: the console asks for one first.
  await navLink(page, 'Activity').click();
  await expect(page.getByRole('heading', { name: 'Choose a client' })).toBeVisible();
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  await expect(page.getByRole('heading', { level: 1, name: 'Activity' })).toBeVisible();
});

import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  SUPER_ADMIN,
  adminToken,
  apiCall,
  createBrandWithAdmin,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  test,
  type ConsoleUser,
} from './support/fixtures';

const base = () => process.env.E2E_BASE_URL!;

/** A login's access token (for the API refusing what the console hides), or the login's status when refused. */
async function login(user: Pick<ConsoleUser, 'email' | 'password'>) {
  const res = await fetch(`${base()}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  return { status: res.status, token: res.ok ? ((await res.json()) as { access_token: string }).access_token : '' };
}

/** The user as the API lists them (listDashboardUsers searched by their e-mail). */
async function userByEmail(email: string) {
  const answer = await apiCall(
    'GET',
    `/api/v1/dashboard/users?search=${encodeURIComponent(email)}`,
    await adminToken(),
  );
  return answer.users.find((u: { email: string }) => u.email === email);
}

/** The e-mails the service sent to `to` (listOutbox, super_admin). */
async function mailTo(to: string): Promise<{ subject: string; text: string; links: string[] }[]> {
  const answer = await apiCall(
    'GET',
    `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
    await adminToken(),
  );
  return answer.messages;
}

const panel = (page: Page, email: string) => page.getByRole('dialog', { name: email });

/** The users list narrowed to one user, with their panel open: the URL alone reproduces the view. */
async function openUser(page: Page, email: string) {
  const user = await userByEmail(email);
  await page.goto(`/console/users?search=${encodeURIComponent(email)}&user=${user.user_id}`);
  await expect(panel(page, email)).toBeVisible();
  return user;
}

test('a super admin lists users by role and e-mail, creates one, and changes its role, client and permissions', async ({
  page,
}) => {
  const tenant = await createTenant('Users');
  const other = await createTenant('Users elsewhere');
  await signIn(page, SUPER_ADMIN, '/console/users');
  await expect(navLink(page, 'Users')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();

  // Filters go to the URL and to the API; the page shows what the API answers for them.
  await page.getByLabel('Role').selectOption({ label: 'Client user' });
  await expect(page).toHaveURL(/role=client_user/);
  const suffix = tenant.user.email.split('@')[0];
  await page.getByLabel('E-mail contains').fill(suffix);
  const listed = page.waitForResponse((r) => r.url().includes('/api/v1/dashboard/users?') && r.url().includes(suffix));
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  expect((await listed).status()).toBe(200);
  await expect(page).toHaveURL(new RegExp(`search=${suffix}`));
  const table = page.getByRole('table', { name: 'Users' });
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText(tenant.user.email);
  await expect(table.getByRole('row').nth(1)).toContainText(tenant.name);
  const api = await apiCall('GET', `/api/v1/dashboard/users?role=client_user&search=${suffix}`, await adminToken());
  expect(api.total).toBe(1);
  await expect(page.getByText('Page 1 of 1 · 1 in all')).toBeVisible();
  // A role that does not match empties the list.
  await page.getByLabel('Role').selectOption({ label: 'Brand admin' });
  await expect(page.getByText('No user matches these filters')).toBeVisible();
  await expectAccessibleInBothThemes(page);

  // Create a user without a password, in the tenant's client.
  const email = `made-${randomBytes(3).toString('hex')}@example.test`;
  await page.getByRole('button', { name: 'New user' }).click();
  const dialog = page.getByRole('dialog', { name: 'New user' });
  await dialog.getByLabel('E-mail').fill(email);
  await dialog.getByLabel('Role').selectOption({ label: 'Client user' });
  await dialog.getByRole('button', { name: 'Create user' }).click();
  await expect(dialog.getByText('Brand admins and client users belong to a client')).toBeVisible();
  await dialog.getByLabel('Client').selectOption({ label: tenant.name });
  await dialog.getByLabel('Permissions').fill('reports.read');
  const created = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/dashboard/users') && r.request().method() === 'POST',
  );
  await dialog.getByRole('button', { name: 'Create user' }).click();
  expect((await created).status()).toBe(201);
  const userPanel = panel(page, email);
  await expect(userPanel).toBeVisible();
  await expect(page).toHaveURL(/user=/);
  let stored = await userByEmail(email);
  expect(stored).toMatchObject({ role: 'client_user', client_id: tenant.clientId, permissions: ['reports.read'] });
  await expect(userPanel.getByText(`Client user · ${tenant.name}`)).toBeVisible();
  await expectAccessibleInBothThemes(page);

  // Role, client and permissions changed in the panel.
  await userPanel.getByLabel('Role').selectOption({ label: 'Brand admin' });
  await userPanel.getByLabel('Client').selectOption({ label: other.name });
  await userPanel.getByLabel('Permissions').fill('reports.read, brands.edit');
  const saved = page.waitForResponse((r) => r.url().includes(`/api/v1/dashboard/users/${stored.user_id}`));
  await userPanel.getByRole('button', { name: 'Save changes' }).click();
  expect((await saved).status()).toBe(200);
  await expect(userPanel.getByText(`Brand admin · ${other.name}`)).toBeVisible();
  stored = await userByEmail(email);
  expect(stored).toMatchObject({
    role: 'brand_admin',
    client_id: other.clientId,
    permissions: ['reports.read', 'brands.edit'],
  });

  // The super admin's own login: no role change, deactivation or deletion offered.
  await openUser(page, SUPER_ADMIN.email);
  const own = panel(page, SUPER_ADMIN.email);
  await expect(own.getByText('You', { exact: true })).toBeVisible();
  await expect(own.getByLabel('Role')).toHaveCount(0);
  await expect(own.getByRole('button', { name: 'Deactivate' })).toHaveCount(0);
  await expect(own.getByRole('button', { name: 'Delete user' })).toHaveCount(0);

  // At phone width the list fits, its table scrolling in its own region.
  await page.goto('/console/users');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Users' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await expectAccessibleInBothThemes(page);
});

test('a generated password is shown once and set; the user signs in with it; a reset e-mail goes out', async ({
  page,
}) => {
  const tenant = await createTenant('Passwords');
  await signIn(page, SUPER_ADMIN, '/console/users');
  const user = await openUser(page, tenant.user.email);
  const userPanel = panel(page, tenant.user.email);

  const generated = page.waitForResponse((r) => r.url().includes(`/users/${user.user_id}/generate-password`));
  await userPanel.getByRole('button', { name: 'Generate a password' }).click();
  expect((await generated).status()).toBe(200);
  const shown = userPanel.locator('[data-secret="Generated password"]');
  const password = (await shown.textContent())!;
  expect(password).toHaveLength(16);
  await expect(userPanel.getByLabel('New password')).toHaveValue(password);
  await userPanel.getByLabel('E-mail the user a link to choose their own').check();
  const set = page.waitForResponse((r) => r.url().includes(`/users/${user.user_id}/set-password`));
  await userPanel.getByRole('button', { name: 'Set password' }).click();
  expect((await set).status()).toBe(200);
  // Shown once: gone from the panel once set, and never in the page's storages.
  await expect(shown).toHaveCount(0);
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(password);
  expect(await page.content()).not.toContain(password);

  expect((await login({ email: tenant.user.email, password })).status).toBe(200);
  expect((await login(tenant.user)).status).toBe(401);
  await expect
    .poll(async () => (await mailTo(tenant.user.email)).map((m) => m.subject))
    .toContain('Your dashboard password was set');
  const notice = (await mailTo(tenant.user.email)).find((m) => m.subject === 'Your dashboard password was set')!;
  expect(notice.text).not.toContain(password);

  // A password typed by the admin.
  await userPanel.getByLabel('New password').fill('typed-by-admin-123');
  await userPanel.getByLabel('E-mail the user a link to choose their own').uncheck();
  await userPanel.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByText(`Password set for ${tenant.user.email}`)).toBeVisible();
  expect((await login({ email: tenant.user.email, password: 'typed-by-admin-123' })).status).toBe(200);

  // The reset e-mail, delivered by its workflow: a link to choose a password.
  const before = (await mailTo(tenant.user.email)).length;
  const reset = page.waitForResponse((r) => r.url().includes(`/users/${user.user_id}/trigger-reset`));
  await userPanel.getByRole('button', { name: 'Send a reset e-mail' }).click();
  expect((await reset).status()).toBe(202);
  await expect(page.getByText(`Reset e-mail on its way to ${tenant.user.email}`)).toBeVisible();
  await expect.poll(async () => (await mailTo(tenant.user.email)).length, { timeout: 20_000 }).toBeGreaterThan(before);
  const links = (await mailTo(tenant.user.email)).flatMap((m) => m.links);
  expect(links.some((l) => l.includes('/reset-password?token='))).toBe(true);
});

test("deactivating ends the user's sessions at once; reactivated, they sign in anew; deleted, they are gone", async ({
  page,
  browser,
}) => {
  const tenant = await createTenant('Deactivate');
  // The user is signed in, in a browser of their own.
  const theirs = await browser.newContext({ baseURL: base() });
  const userPage = await theirs.newPage();
  await signIn(userPage, tenant.user, '/console/jobs');
  await expect(userPage.getByRole('heading', { name: 'Jobs', level: 1 })).toBeVisible();

  await signIn(page, SUPER_ADMIN, '/console/users');
  const user = await openUser(page, tenant.user.email);
  const userPanel = panel(page, tenant.user.email);
  await expect(userPanel.getByText('Deactivating ends the user’s sessions at once')).toBeVisible();
  const off = page.waitForResponse((r) => r.url().includes(`/api/v1/dashboard/users/${user.user_id}`));
  await userPanel.getByRole('button', { name: 'Deactivate' }).click();
  expect((await off).status()).toBe(200);
  await expect(userPanel.getByText('Deactivated', { exact: true })).toBeVisible();
  // Their open console is sent to sign in without a click (its live stream ended), and cannot sign in again.
  await expect(userPage).toHaveURL(/\/console\/sign-in/);
  expect((await login(tenant.user)).status).not.toBe(200);

  await userPanel.getByRole('button', { name: 'Reactivate' }).click();
  await expect(userPanel.getByText('Active', { exact: true })).toBeVisible();
  // The old session stays ended: a reload still asks to sign in; signing in works again.
  await userPage.goto('/console/jobs');
  await expect(userPage).toHaveURL(/\/console\/sign-in/);
  await signIn(userPage, tenant.user, '/console/jobs');
  await theirs.close();

  // Delete, confirmed first.
  await userPanel.getByRole('button', { name: 'Delete user' }).click();
  const confirm = page.getByRole('dialog', { name: `Delete ${tenant.user.email}?` });
  await expectAccessibleInBothThemes(page);
  const removed = page.waitForResponse((r) => r.request().method() === 'DELETE');
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  expect((await removed).status()).toBe(200);
  await expect(panel(page, tenant.user.email)).toBeHidden();
  await expect(page).not.toHaveURL(/user=/);
  expect(await userByEmail(tenant.user.email)).toMatchObject({ is_active: false, brands: [] });
  expect((await login(tenant.user)).status).not.toBe(200);
});

test("a user's brand memberships: listed by name, and added among their client's brands", async ({ page }) => {
  const tenant = await createTenant('Memberships');
  const brand = await createBrandWithAdmin(tenant, 'North');
  const second = await apiCall('POST', '/api/v1/brands', tenant.triple, {
    brand_name: `South ${randomBytes(3).toString('hex')}`,
    slug: `south-${randomBytes(3).toString('hex')}`,
  });
  await signIn(page, SUPER_ADMIN, '/console/users');

  // The brand admin's membership, by the brand's name.
  await openUser(page, brand.admin.email);
  const adminMemberships = panel(page, brand.admin.email).getByRole('list', { name: 'Brand memberships' });
  await expect(adminMemberships).toContainText(brand.brandName);
  await expect(adminMemberships).toContainText('admin');

  await openUser(page, tenant.user.email);
  const userPanel = panel(page, tenant.user.email);
  await expect(userPanel.getByText('Not a member of any brand.')).toBeVisible();
  await userPanel.getByLabel('Add to brand').selectOption({ label: second.brand_name });
  await userPanel.getByLabel('As', { exact: true }).selectOption({ label: 'Admin' });
  const added = page.waitForResponse((r) => r.url().endsWith('/brands') && r.request().method() === 'POST');
  await userPanel.getByRole('button', { name: 'Add', exact: true }).click();
  expect((await added).status()).toBe(201);
  const memberships = userPanel.getByRole('list', { name: 'Brand memberships' });
  await expect(memberships).toContainText(second.brand_name);
  expect((await userByEmail(tenant.user.email)).brands).toEqual([{ brand_id: second.brand_id, role: 'admin' }]);
  // What remains to add: the other brand of the client, not the one joined.
  await expect(userPanel.getByLabel('Add to brand').locator('option')).toHaveText(['Choose a brand', brand.brandName]);
  await expectAccessibleInBothThemes(page);
});

test('a brand admin and a client user: no Users in the navigation, "Not allowed" by address, refused by the API', async ({
  page,
}) => {
  const tenant = await createTenant('Refused users');
  const brand = await createBrandWithAdmin(tenant);
  for (const user of [brand.admin, tenant.user]) {
    await page.context().clearCookies();
    await signIn(page, user, '/console/');
    await expect(navLink(page, 'Jobs')).toBeVisible();
    await expect(navLink(page, 'Users')).toHaveCount(0);
    await page.goto('/console/users');
    await expect(page.getByRole('alert')).toContainText('Not allowed: this page is for super admins');
    await expect(page.getByRole('table', { name: 'Users' })).toHaveCount(0);
    const { token } = await login(user);
    const res = await fetch(`${base()}/api/v1/dashboard/users`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    const created = await fetch(`${base()}/api/v1/dashboard/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `sneaky-${randomBytes(3).toString('hex')}@example.test`, role: 'super_admin' }),
    });
    expect(created.status).toBe(403);
  }
});

import sharp from 'sharp';
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
  loginToken,
} from './support/fixtures';

const base = () => process.env.E2E_BASE_URL!;

/** A call's status, with whatever headers it needs. */
async function statusOf(method: string, path: string, token: string, body?: unknown, headers = {}) {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status;
}

/**
 * axe in both themes once the toasts of earlier actions have gone (a toast fading out is measured mid-fade, at a
 * contrast it never rests at).
 */
async function accessible(page: Page) {
  // A pointer resting over a toast (a button clicked at the bottom right) holds it open: move it away.
  await page.mouse.move(0, 0);
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0, { timeout: 20_000 });
  await expectAccessibleInBothThemes(page);
}

const openTab = async (page: Page, name: string) => {
  await page.getByRole('tab', { name }).click();
  await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
};

test('a brand admin sees only their brands, edits one, its settings, information and logo; another client’s brand is not found', async ({
  page,
}) => {
  const tenant = await createTenant('Brands');
  const mine = await createBrandWithAdmin(tenant, 'Mine');
  // A brand of the same client the admin does not belong to, and one of another client.
  const sameClient = await apiCall('POST', '/api/v1/brands', tenant.triple, {
    brand_name: `Not mine ${tenant.clientId.slice(0, 6)}`,
    slug: `not-mine-${tenant.clientId.slice(0, 6)}`,
  });
  const other = await createTenant('Elsewhere');
  const elsewhere = await createBrandWithAdmin(other, 'Theirs');

  await signIn(page, mine.admin, '/console/brands');
  await expect(navLink(page, 'Brands')).toHaveAttribute('aria-current', 'page');
  const table = page.getByRole('table', { name: 'Brands' });
  await expect(table.getByRole('link', { name: mine.brandName })).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2); // the header and their one brand
  await expect(table).not.toContainText(sameClient.brand_name);
  await expect(table).not.toContainText(elsewhere.brandName);
  await expect(table.getByRole('cell', { name: 'admin', exact: true })).toBeVisible();
  await accessible(page);

  await table.getByRole('link', { name: mine.brandName }).click();
  await expect(page.getByRole('heading', { name: mine.brandName, level: 1 })).toBeVisible();
  await accessible(page);

  // Edit: the name and the billing address (updateBrand).
  const renamed = `${mine.brandName} renamed`;
  await page.getByLabel('Brand name').fill(renamed);
  await page.getByLabel('Billing e-mail').fill('billing@brand.example');
  const updated = page.waitForResponse(
    (r) => r.request().method() === 'PATCH' && r.url().endsWith(`/brands/${mine.brandId}`),
  );
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  expect((await updated).status()).toBe(200);
  await expect(page.getByRole('heading', { name: renamed, level: 1 })).toBeVisible();
  const token = await loginToken(mine.admin);
  expect(await apiCall('GET', `/api/v1/brands/${mine.brandId}`, token)).toMatchObject({
    brand_name: renamed,
    billing_email: 'billing@brand.example',
  });

  // Settings: the job quotas in words with their units; a change is the API's.
  await openTab(page, 'Settings');
  await expect(page).toHaveURL(/tab=settings/);
  const words = page.getByTestId('limits-in-words');
  await expect(words).toContainText('Agents may submit');
  await expect(page.getByText('In jobs per UTC day.')).toBeVisible();
  await page.getByLabel('Jobs per day').fill('120');
  await page.getByLabel('Locations per maps-scrape job').fill('40');
  const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/settings'));
  await page
    .getByRole('region', { name: 'Job quotas and limits' })
    .getByRole('button', { name: 'Save', exact: true })
    .click();
  expect((await saved).status()).toBe(200);
  await expect(words).toContainText('120 jobs a day');
  await expect(words).toContainText('at most 40 locations');
  expect(await apiCall('GET', `/api/v1/brands/${mine.brandId}/settings`, token)).toMatchObject({
    default_campaign_quota_daily: 120,
    default_campaign_max_locations: 40,
  });
  await accessible(page);

  // Information: the company's details; the API refuses an unknown country in words.
  await openTab(page, 'Information');
  await page.getByLabel('City').fill('Utrecht');
  await page.getByLabel('Country').fill('QQ');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Unknown country QQ')).toBeVisible();
  await page.getByLabel('Country').fill('nl');
  const info = page.waitForResponse(
    (r) => r.request().method() === 'PATCH' && r.url().endsWith('/information') && r.status() === 200,
  );
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await info;
  expect(await apiCall('GET', `/api/v1/brands/${mine.brandId}/information`, token)).toMatchObject({
    city: 'Utrecht',
    country: 'NL',
  });
  await accessible(page);

  // Logo: a 300x200 image previewed, then the square the server made of it (sharp: cropped to 200x200), as served.
  await openTab(page, 'Logo');
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#c0392b' } })
    .png()
    .toBuffer();
  await page.getByLabel('Image file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  await expect(page.getByRole('img', { name: 'Preview of logo.png, not yet uploaded' })).toBeVisible();
  const uploaded = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/logo'));
  await page.getByRole('button', { name: 'Upload logo' }).click();
  const logo = await (await uploaded).json();
  const served = page.getByRole('img', { name: /as the service serves it/ });
  await expect(served).toHaveAttribute('src', new URL(logo.logo_url).pathname);
  await expect
    .poll(() => served.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]))
    .toEqual([200, 200]);
  await expect(page.getByRole('img', { name: /Preview of/ })).toBeHidden();
  await accessible(page);
  await page.getByRole('button', { name: 'Remove logo' }).click();
  await expect(page.getByText('No logo yet')).toBeVisible();
  expect((await apiCall('GET', `/api/v1/brands/${mine.brandId}`, token)).logo_url).toBeNull();
  expect(await statusOf('GET', new URL(logo.logo_url).pathname, token)).toBe(404);

  // Another client's brand by its address: not found, in words.
  await page.goto(`/console/brands/${elsewhere.brandId}`);
  await expect(page.getByRole('heading', { name: 'Brand not found', level: 1 })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('Brand not found');
  await accessible(page);
});

test('members: a brand admin adds a user of the client by e-mail, changes the role and removes them', async ({
  page,
}) => {
  const tenant = await createTenant('Members');
  const brand = await createBrandWithAdmin(tenant, 'Team');
  const stranger = await createTenant('Stranger');
  await signIn(page, brand.admin, `/console/brands/${brand.brandId}?tab=members`);
  const members = page.getByRole('table', { name: 'Members' });
  await expect(members.getByRole('cell', { name: brand.admin.email, exact: true })).toBeVisible();
  await accessible(page);

  // A user of another client is refused in the API's words.
  await page.getByRole('button', { name: 'Add member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a member' });
  // An admin cannot hand out the owner role: it is not offered.
  await expect(dialog.getByLabel('Role in the brand').locator('option')).toHaveText(['Admin', 'Member']);
  await dialog.getByLabel('E-mail address').fill(stranger.user.email);
  await dialog.getByRole('button', { name: 'Add member' }).click();
  await expect(page.getByText("No user of the brand's client has this e-mail address")).toBeVisible();
  await dialog.getByLabel('E-mail address').fill(tenant.user.email.toUpperCase());
  await accessible(page);
  const added = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/members'));
  await dialog.getByRole('button', { name: 'Add member' }).click();
  expect((await added).status()).toBe(201);
  await expect(members.getByRole('cell', { name: tenant.user.email, exact: true })).toBeVisible();

  await members.getByLabel(`Role of ${tenant.user.email}`).selectOption('admin');
  await expect(page.getByText(`${tenant.user.email} is now admin`)).toBeVisible();
  const token = await loginToken(brand.admin);
  const listed = async () =>
    (await apiCall('GET', `/api/v1/brands/${brand.brandId}/members`, token)).members as {
      email: string;
      role: string;
    }[];
  expect((await listed()).find((m) => m.email === tenant.user.email)?.role).toBe('admin');

  await members.getByRole('button', { name: `Remove ${tenant.user.email}` }).click();
  await page
    .getByRole('dialog', { name: `Remove ${tenant.user.email}?` })
    .getByRole('button', { name: 'Remove member' })
    .click();
  await expect(members.getByRole('cell', { name: tenant.user.email, exact: true })).toBeHidden();
  expect((await listed()).map((m) => m.email)).toEqual([brand.admin.email]);
});

/** Relayed calls with the brand's key (the agent relay against the service's sandbox provider), as an agent makes. */
async function relayCalls(token: string, brandId: number, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base()}/api/v1/agent/proxy/maps/geocode/json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-brand-id': String(brandId) },
      body: JSON.stringify({ params: { address: `Oudegracht ${i + 1}, Utrecht` } }),
    });
    if (res.status !== 200) throw new Error(`relay: ${res.status} ${await res.text()}`);
  }
}

test('integration keys: add, test, rotate, limits, reset usage; spend and calls drawn as the API answers them', async ({
  page,
}) => {
  const tenant = await createTenant('Keys');
  const brand = await createBrandWithAdmin(tenant, 'Keys');
  await signIn(page, brand.admin, `/console/brands/${brand.brandId}?tab=keys`);
  await expect(page.getByText('No keys yet')).toBeVisible();
  await accessible(page);

  // Add a maps key: the provider's fields come from its template.
  await page.getByRole('button', { name: 'Add key' }).click();
  const add = page.getByRole('dialog', { name: 'Add an integration key' });
  await add.getByLabel('Provider', { exact: true }).selectOption({ label: 'Maps platform' });
  await add.getByLabel('Key label').fill('Production maps key');
  await add.getByLabel('API key').fill('AIzaSyConsoleKey0001');
  await accessible(page);
  const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/integrations'));
  await add.getByRole('button', { name: 'Add key' }).click();
  const key = await (await created).json();
  const keys = page.getByRole('table', { name: 'Integration keys' });
  await expect(keys).toContainText('Production maps key');
  await expect(keys).toContainText(Object.values(key.credentials_masked as Record<string, string>)[0]);

  // Test it against the provider.
  await keys.getByRole('button', { name: 'Test Production maps key' }).click();
  await expect(page.getByText('Production maps key: the provider accepted the key')).toBeVisible();

  // Rotate: a new key replaces the stored one; the masked value follows.
  await keys.getByRole('button', { name: 'Rotate Production maps key' }).click();
  const rotate = page.getByRole('dialog', { name: 'Rotate Production maps key' });
  await rotate.getByLabel('API key').fill('AIzaSyConsoleKey0002');
  await rotate.getByRole('button', { name: 'Replace the key' }).click();
  await expect(keys).toContainText('0002');
  const token = await loginToken(brand.admin);
  const keyPath = `/api/v1/brands/${brand.brandId}/integrations/${key.integration_id}`;
  expect(JSON.stringify((await apiCall('GET', keyPath, token)).credentials_masked)).toContain('0002');

  // Usage and spend limits, in words and units.
  await keys.getByRole('button', { name: 'Limits of Production maps key' }).click();
  const limits = page.getByRole('dialog', { name: 'Limits of Production maps key' });
  await limits.getByLabel('Calls per day').fill('500');
  await limits.getByLabel('Spend limit', { exact: true }).fill('10');
  await limits.getByLabel('Spend period').selectOption('daily');
  await limits.getByLabel('When the spend limit is reached').selectOption('block');
  await accessible(page);
  await limits.getByRole('button', { name: 'Save limits' }).click();
  await expect(limits).toBeHidden();
  await expect(keys).toContainText('per day');
  expect(await apiCall('GET', keyPath, token)).toMatchObject({
    daily_limit: 500,
    spend_limit_amount: 10,
    spend_limit_period: 'daily',
    spend_limit_action: 'block',
  });

  // Spend exists: relayed calls with the brand's key, counted by the service's own drain.
  await relayCalls(token, brand.brandId, 3);
  await expect
    .poll(async () => (await apiCall('GET', `${keyPath}/spend?days=7`, token)).history.at(-1).calls, {
      timeout: 20_000,
    })
    .toBe(3);
  await page.reload();
  await expect(keys).toContainText('3 calls today');
  await page.getByLabel('Days of history').selectOption('7');
  await expect(page).toHaveURL(/days=7/);

  // The charts draw the API's own figures: every day of the history, its amount and its calls.
  const spend = await apiCall('GET', `${keyPath}/spend?days=7`, token);
  expect(spend.history).toHaveLength(7);
  const drawnSpend = await drawnChart(page, 'Spend per day');
  expect(drawnSpend.filter((p) => p.value > 0)).toEqual(
    spend.history
      .filter((d: { amount: number }) => d.amount > 0)
      .map((d: { date: string; amount: number }) => ({ category: d.date, series: 'amount', value: d.amount })),
  );
  expect(spend.history.at(-1).amount).toBeGreaterThan(0);
  const drawnCalls = await drawnChart(page, 'Calls per day');
  expect(drawnCalls).toEqual(
    spend.history.map((d: { date: string; calls: number }) => ({ category: d.date, series: 'calls', value: d.calls })),
  );
  const provider = await apiCall(
    'GET',
    `/api/v1/brands/${brand.brandId}/integrations/spend/provider/maps?days=7`,
    token,
  );
  const drawnProvider = await drawnChart(page, 'Spend per day, all maps keys');
  expect(drawnProvider.filter((p) => p.value > 0)).toEqual(
    provider.history
      .filter((d: { amount: number }) => d.amount > 0)
      .map((d: { date: string; amount: number }) => ({ category: d.date, series: 'amount', value: d.amount })),
  );
  await accessible(page);

  // Reset usage: the day's counter goes to zero (spend stays).
  await keys.getByRole('button', { name: 'Reset usage of Production maps key' }).click();
  await expect(keys).toContainText('0 calls today');
  expect((await apiCall('GET', keyPath, token)).usage_today).toBe(0);
});

test('a super admin lists every client’s brands with the client named, and creates one for a client', async ({
  page,
}) => {
  const tenant = await createTenant('Super');
  const brand = await createBrandWithAdmin(tenant, 'Listed');
  await signIn(page, SUPER_ADMIN, '/console/brands');
  const table = page.getByRole('table', { name: 'Brands' });
  // The list pages through every client's brands; this tenant's is on one of them, with its client named.
  const admin = await adminToken();
  const all = await apiCall('GET', '/api/v1/brands?page_size=100', admin);
  expect(all.brands.some((b: { brand_id: number }) => b.brand_id === brand.brandId)).toBe(true);
  await expect(table.getByRole('columnheader', { name: 'Client' })).toBeVisible();
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  const row = table.getByRole('row').filter({ hasText: brand.brandName });
  await expect(row).toContainText(tenant.name);
  await expect(table.getByRole('row')).toHaveCount(2);
  await accessible(page);

  await page.getByRole('button', { name: 'New brand' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create a brand' });
  await expect(dialog.getByLabel('Client')).toHaveValue(tenant.clientId);
  await dialog.getByLabel('Brand name').fill(`Fresh ${tenant.clientId.slice(0, 6)}`);
  await expect(dialog.getByLabel('Slug')).toHaveValue(`fresh-${tenant.clientId.slice(0, 6)}`);
  await accessible(page);
  const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/api/v1/brands'));
  await dialog.getByRole('button', { name: 'Create brand' }).click();
  const made = await (await created).json();
  expect(made.client_id).toBe(tenant.clientId);
  await expect(page.getByRole('heading', { name: made.brand_name, level: 1 })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/console/brands/${made.brand_id}`));

  // A super admin hands out the owner role, and the owner tab set is all there.
  await openTab(page, 'Members');
  await page.getByRole('button', { name: 'Add member' }).click();
  await expect(
    page.getByRole('dialog', { name: 'Add a member' }).getByLabel('Role in the brand').locator('option'),
  ).toHaveText(['Owner', 'Admin', 'Member']);
});

test('a client user is refused: no Brands in the navigation, the address says Not allowed, the API refuses', async ({
  page,
}) => {
  const tenant = await createTenant('Refused');
  const brand = await createBrandWithAdmin(tenant, 'Guarded');
  await signIn(page, tenant.user, '/console/');
  await expect(navLink(page, 'Jobs')).toBeVisible();
  await expect(navLink(page, 'Brands')).toHaveCount(0);
  await page.goto(`/console/brands/${brand.brandId}`);
  await expect(page.getByText(/Not allowed: this page is for super admins and brand admins/)).toBeVisible();
  await page.goto('/console/brands');
  await expect(page.getByText(/Not allowed: this page is for super admins and brand admins/)).toBeVisible();
  await accessible(page);
  const token = await loginToken(tenant.user);
  expect(await statusOf('PATCH', `/api/v1/brands/${brand.brandId}`, token, { brand_name: 'Taken' })).toBe(404);
  expect(
    await statusOf('POST', `/api/v1/brands/${brand.brandId}/members`, token, {
      email: tenant.user.email,
      role: 'owner',
    }),
  ).toBe(404);
  expect(
    await statusOf('POST', `/api/v1/brands/${brand.brandId}/integrations`, token, {
      provider_name: 'maps',
      key_label: 'x',
      credentials: { api_key: 'AIzaSyRefused' },
    }),
  ).toBe(404);
});

test('the brands list and a brand at phone width (390 px): no page-wide horizontal scroll', async ({ page }) => {
  const tenant = await createTenant('Phone');
  const brand = await createBrandWithAdmin(tenant, 'Phone');
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, brand.admin, '/console/brands');
  await expect(page.getByRole('table', { name: 'Brands' }).getByRole('link', { name: brand.brandName })).toBeVisible();
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  for (const tab of ['overview', 'settings', 'members', 'keys']) {
    await page.goto(`/console/brands/${brand.brandId}?tab=${tab}`);
    await expect(page.getByRole('heading', { name: brand.brandName, level: 1 })).toBeVisible();
    await expect(page.getByRole('tabpanel')).toBeVisible();
    expect(await overflow(), `the ${tab} tab`).toBeLessThanOrEqual(0);
  }
  await accessible(page);
});

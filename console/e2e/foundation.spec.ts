import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  test,
  type Tenant,
} from './support/fixtures';

let tenant: Tenant;
test.beforeAll(async () => {
  tenant = await createTenant('Foundation');
});

test('a deep link signs in first and then opens the page asked for', async ({ page }) => {
  await page.goto('/console/watches');
  await expect(page).toHaveURL(/\/console\/sign-in\?next=/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('E-mail').fill(tenant.user.email);
  await page.getByLabel('Password').fill('not-the-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Invalid');
  await page.getByLabel('Password').fill(tenant.user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/console\/watches(\?|$)/);
  await expect(navLink(page, 'Watches')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByText(`${tenant.user.email} · client user`)).toBeVisible();
});

test('an expired session returns to sign-in, and then to the page the user was on', async ({ page, context }) => {
  await signIn(page, tenant.user, '/console/leads');
  await expect(page).toHaveURL(/\/console\/leads(\/|$)/);
  // The session ends server-side (as an expiry or a logout elsewhere does): the browser's cookie no longer works.
  const cookie = (await context.cookies()).find((c) => c.name === 'lead_session')!;
  const ended = await fetch(`${process.env.E2E_BASE_URL}/api/v1/auth/logout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cookie.value}` },
  });
  expect(ended.status).toBe(200);
  // The open event stream ends with the session, and the console asks to sign in again without a click.
  await expect(page).toHaveURL(/\/console\/sign-in\?next=(%2F|\/)leads/);
  await page.getByLabel('E-mail').fill(tenant.user.email);
  await page.getByLabel('Password').fill(tenant.user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/console\/leads(\/|$)/);
});

test('sign-out ends the session: the pages ask to sign in again', async ({ page, context }) => {
  await signIn(page, tenant.user);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect((await context.cookies()).find((c) => c.name === 'lead_session')).toBeUndefined();
  await page.goto('/console/jobs');
  await expect(page).toHaveURL(/\/console\/sign-in/);
});

test('a write another origin makes the browser send with the session cookie is refused', async ({ page }) => {
  await signIn(page, tenant.user);
  // Another origin on the same site (another port of the same host: the Lax cookie goes with its requests), whose
  // page posts a form to the service's logout, as a hostile page would.
  const api = new URL(process.env.E2E_BASE_URL!);
  const foreign = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(
      `<!doctype html><form method="post" action="${api.origin}/api/v1/auth/logout"></form>` +
        '<script>document.forms[0].submit()</script>',
    );
  });
  await new Promise<void>((resolve) => foreign.listen(0, api.hostname, resolve));
  try {
    const attacker = await page.context().newPage();
    await attacker.goto(`http://${api.hostname}:${(foreign.address() as AddressInfo).port}/`);
    await expect(attacker.locator('body')).toContainText('Refused a write with the session cookie from another origin');
    await attacker.close();
  } finally {
    foreign.close();
  }
  // The session the form tried to end still works.
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
});

test('no credential is kept in the page: not in a URL, localStorage, sessionStorage or a readable cookie', async ({
  page,
}) => {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  await signIn(page, tenant.user, '/console/jobs');
  for (const name of ['Leads', 'Watches', 'Content', 'Credentials', 'Jobs']) await navLink(page, name).click();
  const stored = await page.evaluate(() => ({
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
    cookies: document.cookie,
  }));
  const secrets = /lss_|lpat_|lrt_|access_token|api_secret/;
  expect(urls.filter((u) => secrets.test(u) || /[?&]token=/.test(u))).toEqual([]);
  expect(stored.local).not.toMatch(secrets);
  expect(stored.session).not.toMatch(secrets);
  expect(stored.cookies).not.toContain('lead_session');
});

test('the event stream opens with the cookie, says when it is offline, and resumes from Last-Event-ID', async ({
  page,
  context,
}) => {
  await signIn(page, tenant.user, '/console/jobs');
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await context.setOffline(true);
  await expect(page.getByText('Offline, reconnecting…')).toBeVisible();
  // Back online, the stream is opened again from the last event it had (the API replays what was missed).
  const resumed = page.waitForRequest(
    (r) => r.url().endsWith('/api/v1/events/stream') && !!r.headers()['last-event-id'],
  );
  await context.setOffline(false);
  expect((await resumed).headers()['last-event-id']).toMatch(/^\d+-\d+$/);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
});

test('the sign-in and workspace pages pass axe in both themes, and work at phone width', async ({ page }) => {
  await page.goto('/console/sign-in');
  await expectAccessibleInBothThemes(page);
  await page.goto('/console/forgot-password');
  await expectAccessibleInBothThemes(page);
  await signIn(page, tenant.user, '/console/jobs');
  await expectAccessibleInBothThemes(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await page.getByRole('button', { name: 'Menu' }).click();
  await navLink(page, 'Leads').click();
  await expect(page).toHaveURL(/\/console\/leads(\/|$)/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test('a super_admin picks the client it acts for, and every call and the event stream name it', async ({ page }) => {
  await page.goto('/console/sign-in');
  await page.evaluate(() => sessionStorage.clear());
  await signIn(page, { email: 'root@example.test', password: 'root-password-123' }, '/console/jobs');
  await expect(page.getByRole('heading', { name: 'Choose a client' })).toBeVisible();
  const stream = page.waitForRequest(
    (r) => r.url().endsWith('/api/v1/events/stream') && r.headers()['x-selected-client-id'] === tenant.clientId,
  );
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  await stream;
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();
  // The choice lasts for the tab: after a reload the calls still name the client.
  const call = page.waitForRequest(
    (r) => r.url().includes('/api/v1/') && r.headers()['x-selected-client-id'] === tenant.clientId,
  );
  await page.reload();
  await call;
  await expect(page.getByLabel('Acting for')).toHaveValue(tenant.clientId);
});

test('signing in and moving between pages works with the keyboard alone', async ({ page }) => {
  await page.goto('/console/jobs');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('E-mail')).toBeFocused();
  await page.keyboard.type(tenant.user.email);
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Password')).toBeFocused();
  await page.keyboard.type(tenant.user.password);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/console\/jobs(\?|$)/);
  // Each page change puts the focus on the page itself; the navigation is behind it.
  const main = page.locator('main#main');
  await expect(main).toBeFocused();
  const watches = navLink(page, 'Watches');
  for (let i = 0; i < 30 && !(await watches.evaluate((el) => el === document.activeElement)); i += 1)
    await page.keyboard.press('Shift+Tab');
  await expect(watches).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/console\/watches(\?|$)/);
  await expect(main).toBeFocused();
  // From the top of a freshly loaded page, the first stop is the skip link, which leads past the navigation.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Watches' })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);
});

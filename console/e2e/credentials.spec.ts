import type { Page } from '@playwright/test';
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
  loginToken,
} from './support/fixtures';

const base = () => process.env.E2E_BASE_URL!;
/** A call's status only: a refused credential is what some checks expect. */
const statusOf = async (path: string, token: string) =>
  (await fetch(`${base()}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;

/** Everything the page's origin keeps in its storages, as one string. */
const storages = (page: Page) =>
  page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));

test('regenerate the credentials: a warning first, the new triple shown once, the old one refused', async ({
  page,
}) => {
  const tenant = await createTenant('Regenerate');
  expect(await statusOf('/api/v1/dashboard/client/watches', tenant.triple)).toBe(200);
  await signIn(page, tenant.user, '/console/credentials');
  await expect(navLink(page, 'Credentials')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { name: 'Credentials', level: 1 })).toBeVisible();
  await expectAccessibleInBothThemes(page);

  await page.getByRole('button', { name: 'Regenerate credentials' }).click();
  const confirm = page.getByRole('dialog', { name: 'Regenerate the credentials?' });
  await expect(confirm).toContainText('The current triple stops working at once');
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/dashboard/credentials/regenerate'));
  await confirm.getByRole('button', { name: 'Regenerate now' }).click();
  expect((await answered).status()).toBe(200);

  const shownOnce = page.getByRole('dialog', { name: 'Your new credentials' });
  await expect(shownOnce).toContainText('they will not be shown again');
  const triple = (await shownOnce.locator('[data-secret="Credential triple"]').textContent())!;
  expect(triple.startsWith(`${tenant.clientId}:`)).toBe(true);
  await expect(shownOnce.getByRole('button', { name: 'Copy Credential triple' })).toBeVisible();
  await expectAccessibleInBothThemes(page);
  const secret = triple.split(':')[2];
  expect(await storages(page)).not.toContain(secret);

  await shownOnce.getByRole('button', { name: 'I have stored them' }).click();
  await expect(shownOnce).toBeHidden();
  expect(await page.content()).not.toContain(secret);
  expect(await storages(page)).not.toContain(secret);
  expect(await storages(page)).not.toContain(triple.split(':')[1]);

  // The old triple is refused at once; the one shown works.
  expect(await statusOf('/api/v1/dashboard/client/watches', tenant.triple)).toBe(401);
  expect(await statusOf('/api/v1/dashboard/client/watches', triple)).toBe(200);
});

test('the webhook secret: shown when asked for, rotated with the replaced one still signing for a while', async ({
  page,
}) => {
  const tenant = await createTenant('Webhook secret');
  await signIn(page, tenant.user, '/console/credentials');
  await page.getByRole('button', { name: 'Show the secret' }).click();
  const value = page.locator('[data-secret="Webhook secret"]');
  const current = (await apiCall('GET', '/api/v1/dashboard/webhook-secret', tenant.triple)).secret as string;
  await expect(value).toHaveText(current);
  await expect(page.getByText('No replaced secret signs beside it.')).toBeVisible();

  await page.getByRole('button', { name: 'Rotate', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Rotate the webhook secret?' });
  await expect(confirm).toContainText('keeps signing beside the new one');
  await confirm.getByRole('button', { name: 'Rotate now' }).click();
  await expect(confirm).toBeHidden();
  await expect(value).not.toHaveText(current);
  const rotated = await apiCall('GET', '/api/v1/dashboard/webhook-secret', tenant.triple);
  await expect(value).toHaveText(rotated.secret);
  expect(rotated.previous_expires_at).not.toBeNull();
  await expect(page.getByText(/The replaced secret still signs beside it until/)).toBeVisible();
  await expectAccessibleInBothThemes(page);
  expect(await storages(page)).not.toContain(rotated.secret.slice(6));

  await page.getByRole('button', { name: 'Hide the secret' }).click();
  await expect(value).toBeHidden();
});

/** An agent token for the tenant, approved as tests approve one: the administrator's e-mailed link. */
async function approvedAgentToken(clientId: string) {
  const request = await fetch(`${base()}/api/v1/auth/pat/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: clientId,
      owner_email: 'dev@agency.test',
      project_name: 'console-e2e',
      requested_scopes: ['jobs:read'],
    }),
  });
  expect(request.status).toBe(200);
  const receipt = (await request.json()) as { request_id: string; poll_url: string };
  const admin = await adminToken();
  let link: string | undefined;
  await expect
    .poll(async () => {
      const outbox = await apiCall('GET', '/api/v1/dev/outbox?channel=email&limit=200', admin);
      const mail = outbox.messages.find((m: { links: string[] }) =>
        m.links.some((l) => l.includes(receipt.request_id)),
      );
      link = mail?.links.find((l: string) => l.includes('/approve?'));
      return link;
    })
    .toBeTruthy();
  const decided = await fetch(link!, { method: 'POST', headers: { accept: 'application/json' } });
  expect(decided.status).toBe(200);
  let token: string | undefined;
  // The poll is paced by the service (429 slow_down within its interval): asked until it answers approved.
  await expect
    .poll(
      async () => {
        const res = await fetch(`${base()}${receipt.poll_url}`);
        if (res.status !== 200) return undefined;
        const body = (await res.json()) as { status: string; access_token?: string };
        token = body.status === 'approved' ? body.access_token : undefined;
        return token;
      },
      { timeout: 30_000, intervals: [1_000, 2_000, 5_000] },
    )
    .toBeTruthy();
  return token!;
}

test('list and revoke an agent token of a brand the user administers; the token is refused after', async ({ page }) => {
  const tenant = await createTenant('Agent tokens');
  // The client_user makes a brand (becoming its owner); an agent's token then acts for it (the client's only brand).
  const session = await loginToken(tenant.user);
  const suffix = tenant.clientId.slice(0, 8);
  await apiCall('POST', '/api/v1/brands', session, { brand_name: `Brand ${suffix}`, slug: `brand-${suffix}` });
  const agent = await approvedAgentToken(tenant.clientId);
  expect(await statusOf('/api/v1/dashboard/client/jobs', agent)).toBe(200);
  const [listed] = (await apiCall('GET', '/api/v1/auth/pat/agents', tenant.triple)).agents;

  await signIn(page, tenant.user, '/console/credentials');
  const table = page.getByRole('table', { name: 'Agent tokens' });
  const row = table.locator(`tr[data-row-id="${listed.token_id}"]`);
  await expect(row).toContainText(`${listed.token_prefix}…`);
  await expect(row).toContainText('console-e2e');
  await expect(row).toContainText('jobs:read');
  await expect(row).toContainText('active');
  await expectAccessibleInBothThemes(page);

  // The same list and manage dialog as the Agents page (one TokensSection): revoke is one of its actions.
  await row.getByRole('button', { name: /^Manage / }).click();
  const manage = page.getByRole('dialog', { name: `${listed.project_name} (${listed.token_prefix}…)` });
  await expect(manage).toContainText('stops working at once');
  await manage.getByRole('button', { name: 'Revoke the token' }).click();
  await expect(row).toBeHidden();
  await expect(page.getByText('No agent tokens')).toBeVisible();
  expect(await statusOf('/api/v1/dashboard/client/jobs', agent)).toBe(401);

  await page.getByLabel('Include revoked and expired tokens').check();
  await expect(page).toHaveURL(/inactive=true/);
  await expect(row).toContainText('revoked');
});

test('a super admin: no client of its own to regenerate (the page says who may), the webhook secret of the client it acts for', async ({
  page,
}) => {
  const tenant = await createTenant('Super creds');
  await signIn(page, SUPER_ADMIN, '/console/credentials');
  // The workspace asks for the client first (the app shell), then draws the page for it.
  await expect(page.getByRole('heading', { name: 'Choose a client' })).toBeVisible();
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  await expect(page.getByText("the client's brand admin or client user regenerates its credentials")).toBeVisible();
  await expect(page.getByRole('button', { name: 'Regenerate credentials' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Show the secret' }).click();
  const current = (await apiCall('GET', '/api/v1/dashboard/webhook-secret', tenant.triple)).secret as string;
  await expect(page.locator('[data-secret="Webhook secret"]')).toHaveText(current);
  await expectAccessibleInBothThemes(page);
});

test('the credentials page at phone width (390 px): no page-wide horizontal scroll', async ({ page }) => {
  const tenant = await createTenant('Creds phone');
  await signIn(page, tenant.user, '/console/credentials');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Agent tokens' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

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
  type Tenant,
  loginToken,
} from './support/fixtures';

const base = () => process.env.E2E_BASE_URL!;
const STATUS = '/api/v1/auth/pat/status';

interface Receipt {
  request_id: string;
  poll_url: string;
  poll_interval_seconds: number;
}

/** An agent asks for access as `packages/client` or curl would: no credential, the tenant's client_id. */
async function agentRequests(tenant: Tenant, body: Record<string, unknown> = {}) {
  const project = `agent-${randomBytes(3).toString('hex')}`;
  const res = await fetch(`${base()}/api/v1/auth/pat/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: tenant.clientId,
      owner_email: `dev-${project}@agency.test`,
      project_name: project,
      requested_scopes: ['jobs:read'],
      ttl_hours: 48,
      fingerprint: { agent_type: 'claude-code', hostname: `host-${project}`, cwd: '/home/dev/lead-finder' },
      ...body,
    }),
  });
  expect(res.status).toBe(200);
  return { project, receipt: (await res.json()) as Receipt };
}

/**
 * The agent's status poll, at the pace the service allows (a poll within its interval of the last is refused
 * 429 slow_down), until the request is no longer pending.
 */
async function agentPolls(receipt: Receipt) {
  let answer: { status: string; access_token: string | null } = { status: 'pending', access_token: null };
  await expect
    .poll(
      async () => {
        const res = await fetch(`${base()}${receipt.poll_url}`);
        if (res.status === 200) answer = (await res.json()) as typeof answer;
        return answer.status;
      },
      { intervals: [receipt.poll_interval_seconds * 1000], timeout: 30_000 },
    )
    .not.toBe('pending');
  return answer;
}

const agentCall = (token: string) => fetch(`${base()}${STATUS}`, { headers: { authorization: `Bearer ${token}` } });

/**
 * A fixed minute window starts again on the UTC minute: a burst begun in its last seconds could straddle two windows.
 * The burst waits for the next minute when fewer than 15 s of this one are left (time is the subject here).
 */
async function awayFromMinuteEdge(page: Page) {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await page.waitForTimeout(60_000 - intoMinute + 100);
}

/**
 * The approver opens Agents, finds the request, reviews its facts, sets 2 requests per minute and approves; the agent's
 * poll gets the token, and its third call in a minute is refused with the limit named.
 */
async function approveWithLimits(page: Page, approver: ConsoleUser, tenant: Tenant, brandName: string) {
  const { project, receipt } = await agentRequests(tenant);
  await signIn(page, approver);
  await navLink(page, 'Agents').click();
  await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
  const requests = page.getByRole('table', { name: 'Access requests' });
  const row = requests.getByRole('row').filter({ hasText: project });
  await expect(row).toContainText(brandName);
  await expect(row).toContainText('jobs:read');
  await expect(row).toContainText('48 hours (2 days)');
  await expectAccessibleInBothThemes(page);

  await row.getByRole('button', { name: `Review ${project}` }).click();
  const review = page.getByRole('dialog', { name: `Access for ${project}?` });
  await expect(review).toContainText(tenant.name);
  await expect(review).toContainText(`dev-${project}@agency.test`);
  await expect(review).toContainText(`host-${project}`);
  await expect(review).toContainText('/home/dev/lead-finder');
  await expect(review).toContainText("read the client's jobs, their results and lead data");
  await expect(review).toContainText('48 hours (2 days) from approval');
  await expect(review).toContainText(brandName);
  // Pre-filled with the offer exactly as the e-mail page offers it: the API's own offer for this approver.
  const listed = await apiCall('GET', '/api/v1/auth/pat/requests', await loginToken(approver));
  const offer = listed.requests.find((r: { request_id: string }) => r.request_id === receipt.request_id).limits;
  const asText = (n: number | null) => (n === null ? '' : String(n));
  await expect(review.getByLabel('Requests per minute')).toHaveValue(asText(offer.offered.rate_limit_rpm));
  await expect(review.getByLabel('Requests per day')).toHaveValue(asText(offer.offered.rate_limit_rpd));
  await expect(review.getByLabel('Monthly budget (USD)')).toHaveValue(asText(offer.offered.monthly_budget_usd));
  await expectAccessibleInBothThemes(page);

  await review.getByLabel('Requests per minute').fill('0');
  await review.getByRole('button', { name: 'Approve access' }).click();
  await expect(review.getByText('A whole number from 1 to 1,000,000, or empty for no limit')).toBeVisible();
  await review.getByLabel('Requests per minute').fill('2');
  const decided = page.waitForResponse((r) => r.url().endsWith(`/requests/${receipt.request_id}/decision`));
  await review.getByRole('button', { name: 'Approve access' }).click();
  const answer = await decided;
  expect(answer.status()).toBe(200);
  expect(answer.request().postDataJSON()).toEqual({
    verdict: 'approved',
    limits: { rate_limit_rpm: 2, rate_limit_rpd: null, monthly_budget_usd: null },
  });
  await expect(review).toBeHidden();
  await expect(requests.getByRole('row').filter({ hasText: project })).toHaveCount(0);

  const polled = await agentPolls(receipt);
  expect(polled.status).toBe('approved');
  const token = polled.access_token!;
  expect(token).toMatch(/^lpat_/);
  await awayFromMinuteEdge(page);
  const calls = [await agentCall(token), await agentCall(token), await agentCall(token)];
  expect(calls.map((c) => c.status)).toEqual([200, 200, 429]);
  expect(calls[2].headers.get('ratelimit-policy')).toContain('"rpm";q=2;w=60');
  return { project, receipt, token };
}

test('the approval of an agent done in the console by a brand admin: limits set, the agent held to them', async ({
  page,
}) => {
  const tenant = await createTenant('Approve');
  const brand = await createBrandWithAdmin(tenant, 'Bakery');
  const { project } = await approveWithLimits(page, brand.admin, tenant, brand.brandName);

  // The decision is listed with who made it.
  await page.getByLabel('State').selectOption('approved');
  await expect(page).toHaveURL(/status=approved/);
  const row = page.getByRole('table', { name: 'Access requests' }).getByRole('row').filter({ hasText: project });
  await expect(row).toContainText(`by ${brand.admin.email}`);
});

test('the approval of an agent done in the console by a super admin, as the client’s administrator', async ({
  page,
}) => {
  const tenant = await createTenant('Super Approve');
  const brand = await createBrandWithAdmin(tenant, 'Florist');
  await approveWithLimits(page, SUPER_ADMIN, tenant, brand.brandName);
});

test('deny from the console; a brand admin cannot approve a multi-brand request; the e-mail link then answers 409', async ({
  page,
}) => {
  const tenant = await createTenant('Deny');
  const brand = await createBrandWithAdmin(tenant, 'Grocer');
  const { project, receipt } = await agentRequests(tenant, { multi_brand: true });
  await signIn(page, brand.admin, '/console/agents');
  const row = page.getByRole('table', { name: 'Access requests' }).getByRole('row').filter({ hasText: project });
  await row.getByRole('button', { name: `Review ${project}` }).click();
  const review = page.getByRole('dialog', { name: `Access for ${project}?` });
  await expect(review).toContainText("You cannot approve it: A multi-brand request needs the client's administrator");
  await expect(review.getByRole('button', { name: 'Approve access' })).toHaveCount(0);
  await expectAccessibleInBothThemes(page);
  const decided = page.waitForResponse((r) => r.url().endsWith(`/requests/${receipt.request_id}/decision`));
  await review.getByRole('button', { name: 'Deny access' }).click();
  expect((await decided).status()).toBe(200);
  await expect(page.getByText(`Denied ${project}`)).toBeVisible();
  expect((await agentPolls(receipt)).status).toBe('denied');

  // The e-mail's link cannot decide it again.
  const admin = await adminToken();
  const outbox = await apiCall(
    'GET',
    `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(brand.admin.email)}`,
    admin,
  );
  const mail = outbox.messages.find((m: { links: string[] }) => m.links.some((l) => l.includes(receipt.request_id)));
  const approveLink = mail.links.find((l: string) => l.includes('/approve?'));
  const late = await fetch(approveLink, { method: 'POST', headers: { accept: 'application/json' } });
  expect(late.status).toBe(409);
});

test('agent tokens: last use, limits and spend listed; limits changed, the token regenerated (shown once), revoked', async ({
  page,
}) => {
  const tenant = await createTenant('Tokens');
  const brand = await createBrandWithAdmin(tenant, 'Baker');
  const { project, receipt } = await agentRequests(tenant);
  const admin = await adminToken();
  await apiCall('POST', `/api/v1/auth/pat/requests/${receipt.request_id}/decision`, admin, {
    verdict: 'approved',
    limits: { rate_limit_rpm: 30, monthly_budget_usd: 25 },
  });
  const { access_token: first } = await agentPolls(receipt);
  expect((await agentCall(first!)).status).toBe(200);

  await signIn(page, brand.admin, '/console/agents?tab=tokens');
  const tokens = page.getByRole('table', { name: 'Agent tokens' });
  const row = tokens.getByRole('row').filter({ hasText: project });
  await expect(row).toContainText(`brand ${brand.brandId}: 30 requests per minute, no limit per day`);
  await expect(row).toContainText('USD 0 of USD 25');
  await expect(row).not.toContainText('never');
  await expectAccessibleInBothThemes(page);

  await row.getByRole('button', { name: `Manage ${project}` }).click();
  const manage = page.getByRole('dialog', { name: new RegExp(project) });
  await expect(manage.getByLabel('Requests per minute')).toHaveValue('30');
  await expectAccessibleInBothThemes(page);
  await manage.getByLabel('Requests per minute').fill('5');
  const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/agent-users/'));
  await manage.getByRole('button', { name: 'Save limits' }).click();
  expect((await saved).status()).toBe(200);
  const status = (await (await agentCall(first!)).json()) as { agent_users: { rate_limit_rpm: number }[] };
  expect(status.agent_users[0].rate_limit_rpm).toBe(5);

  const regenerated = page.waitForResponse((r) => r.url().endsWith('/regenerate'));
  await manage.getByRole('button', { name: 'Regenerate token' }).click();
  expect((await regenerated).status()).toBe(200);
  const shown = page.getByRole('dialog', { name: 'The agent’s new token' });
  const second = (await shown.locator('[data-secret="New agent token"]').textContent())!;
  expect(second).toMatch(/^lpat_/);
  await expectAccessibleInBothThemes(page);
  expect((await agentCall(first!)).status).toBe(401);
  expect((await agentCall(second)).status).toBe(200);
  await shown.getByRole('button', { name: 'I have stored it' }).click();
  await expect(shown).toBeHidden();
  expect(await page.content()).not.toContain(second);
  // Outside the dialogs again, the list shows the limits changed.
  await expect(row).toContainText(`brand ${brand.brandId}: 5 requests per minute`);
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(second);

  await tokens
    .getByRole('row')
    .filter({ hasText: project })
    .getByRole('button', { name: `Manage ${project}` })
    .click();
  const revoking = page.getByRole('dialog', { name: new RegExp(project) });
  const revoked = page.waitForResponse((r) => r.request().method() === 'DELETE' && r.url().includes('/auth/pat/'));
  await revoking.getByRole('button', { name: 'Revoke the token' }).click();
  expect((await revoked).status()).toBe(200);
  await expect(tokens.getByRole('row').filter({ hasText: project })).toHaveCount(0);
  expect((await agentCall(second)).status).toBe(401);
});

test('a client user is refused: no Agents in the navigation, the address answers "Not allowed", the API 403', async ({
  page,
}) => {
  const tenant = await createTenant('Refused');
  await signIn(page, tenant.user);
  await expect(navLink(page, 'Jobs')).toBeVisible();
  await expect(navLink(page, 'Agents')).toHaveCount(0);
  await page.goto('/console/agents');
  await expect(page.getByText(/Not allowed: this page is for super admins and brand admins/)).toBeVisible();
  const session = await loginToken(tenant.user);
  const res = await fetch(`${base()}/api/v1/auth/pat/requests`, { headers: { authorization: `Bearer ${session}` } });
  expect(res.status).toBe(403);
});

test('the agents page at phone width (390 px): no page-wide horizontal scroll', async ({ page }) => {
  const tenant = await createTenant('Phone');
  const brand = await createBrandWithAdmin(tenant, 'Phone');
  const { project } = await agentRequests(tenant);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, brand.admin, '/console/agents');
  await expect(page.getByRole('table', { name: 'Access requests' }).getByText(project, { exact: true })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByRole('button', { name: `Review ${project}` }).click();
  await expect(page.getByRole('dialog', { name: `Access for ${project}?` })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleInBothThemes(page);
});

import type { Page } from '@playwright/test';
import {
  apiCall,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  signIn,
  test,
  type Tenant,
} from './support/fixtures';

/** A small maps-scrape: one location, done in seconds by the test service's sandbox provider. */
const SMALL_JOB = { query: 'bakery', country_code: 'LU', max_locations: 1 };

let tenant: Tenant;
let jobId: string;
let watch: { watch_id: string; name: string };

test.beforeAll(async () => {
  tenant = await createTenant('Palette');
  ({ job_id: jobId } = await apiCall(
    'POST',
    '/api/v1/dashboard/client/jobs/maps-scrape/submit',
    tenant.triple,
    SMALL_JOB,
  ));
  watch = await apiCall('POST', '/api/v1/dashboard/client/watches', tenant.triple, {
    name: `Florists of Luxembourg ${tenant.clientId.slice(0, 4)}`,
    maps_scrape: { ...SMALL_JOB, query: 'florist' },
    cadence: { interval_seconds: 86_400 },
  });
});

test.afterAll(async () => {
  await apiCall('DELETE', `/api/v1/dashboard/client/watches/${watch.watch_id}`, tenant.triple);
});

const palette = (page: Page) => page.getByRole('dialog', { name: 'Go to' });

/** Opens the palette with `how` (a key or a click) and waits for its field to have the focus, as a person sees. */
async function openPalette(page: Page, how: string | 'click') {
  if (how === 'click') await page.getByRole('button', { name: /^Search/ }).click();
  else await page.keyboard.press(how);
  await expect(palette(page).getByRole('combobox', { name: 'Search' })).toBeFocused();
}

test('Ctrl-K opens the palette; a job by its id and Enter open the job', async ({ page }) => {
  await signIn(page, tenant.user, '/console/jobs');
  await openPalette(page, 'Control+k');
  await page.keyboard.type(jobId);
  const hit = palette(page).getByRole('option').filter({ hasText: jobId });
  await expect(hit).toHaveCount(1);
  await expect(hit).toContainText('bakery (LU)');
  // The only result is the one chosen: Enter opens it.
  await expect(hit).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/console/jobs/${jobId}(\\?|$)`));
  await expect(palette(page)).toBeHidden();
});

test('"/" opens the palette; a watch by a word of its name, chosen with the arrows, opens with Enter', async ({
  page,
}) => {
  await signIn(page, tenant.user, '/console/jobs');
  await openPalette(page, '/');
  await page.keyboard.type('florists');
  const hit = palette(page).getByRole('option', { name: new RegExp(watch.name) });
  await expect(hit).toBeVisible();
  // The pages come first when they match; here nothing else matches, the watch is the first result.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await expect(hit).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/console/watches/${watch.watch_id}(\\?|$)`));
});

test('a page by its name, and a business the job found by its name, open from the palette', async ({ page }) => {
  await expect
    .poll(async () => (await apiCall('GET', `/api/v1/dashboard/client/jobs/${jobId}/status`, tenant.triple)).status, {
      timeout: 60_000,
    })
    .toBe('completed');
  // What the job found, as the palette's search finds it (the search may take a moment to see new leads).
  let business: { resource_id: string; idap_ref: string; data: { name: string } } | undefined;
  await expect
    .poll(
      async () => {
        const found = await apiCall('GET', '/api/v1/idap/businesses/search?q=bakery&limit=1', tenant.triple);
        business = found.items[0];
        return found.items.length;
      },
      { timeout: 30_000 },
    )
    .toBe(1);

  await signIn(page, tenant.user, '/console/jobs');
  await openPalette(page, 'click');
  await page.keyboard.type('watch');
  await palette(page).getByRole('option', { name: 'Watches' }).click();
  await expect(page).toHaveURL(/\/console\/watches(\?|$)/);

  await openPalette(page, 'Control+k');
  await page.keyboard.type(business!.data.name);
  const hit = palette(page)
    .getByRole('group', { name: 'Businesses' })
    .getByRole('option', { name: new RegExp(business!.data.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
    .first();
  await expect(hit).toBeVisible();
  await hit.click();
  await expect(page).toHaveURL(/\/console\/leads\/businesses\?/);
  expect(new URL(page.url()).searchParams.get('lead')).toBe(business!.idap_ref);
  // The lead's detail panel opens on it.
  await expect(page.getByRole('dialog', { name: business!.data.name })).toBeVisible();
});

test('"?" lists the shortcuts; "g w" goes to watches; none fires while typing in a field', async ({ page }) => {
  await signIn(page, tenant.user, '/console/jobs');
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  for (const does of ['Go to Jobs', 'Go to Leads', 'Go to Watches', 'Go to Content', 'Search: the command palette'])
    await expect(help.getByRole('row', { name: new RegExp(does) })).toBeVisible();
  await expectAccessibleInBothThemes(page);
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();

  await page.keyboard.press('g');
  await page.keyboard.press('w');
  await expect(page).toHaveURL(/\/console\/watches(\?|$)/);
  await page.keyboard.press('g');
  await page.keyboard.press('j');
  await expect(page).toHaveURL(/\/console\/jobs(\?|$)/);

  // Typed into the palette's field: text, not shortcuts.
  await openPalette(page, 'Control+k');
  await page.keyboard.type('g w ?');
  await expect(palette(page).getByRole('combobox', { name: 'Search' })).toHaveValue('g w ?');
  await expect(page).toHaveURL(/\/console\/jobs(\?|$)/);
  await expect(help).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(palette(page)).toBeHidden();

  // Typed into a field of a page (one the test adds to the page's main region): text too.
  await page.locator('main').evaluate((main) => {
    const input = document.createElement('input');
    input.setAttribute('aria-label', 'A field of the page');
    main.prepend(input);
  });
  await page.getByLabel('A field of the page').focus();
  await page.keyboard.type('gw/?');
  await expect(page.getByLabel('A field of the page')).toHaveValue('gw/?');
  await expect(page).toHaveURL(/\/console\/jobs(\?|$)/);
  await expect(help).toBeHidden();
  await expect(palette(page)).toBeHidden();
});

test('"API call" shows curl, the CLI and MCP forms with $LEAD_SERVICE_TOKEN and no real credential', async ({
  page,
  context,
}) => {
  await signIn(page, tenant.user, '/console/jobs');
  await openPalette(page, 'Control+k');
  await page.keyboard.type('bakery');
  await palette(page).getByRole('button', { name: 'Show the API call: searchResources' }).click();
  const call = page.getByRole('dialog', { name: 'The API call' });
  await expect(call).toBeVisible();
  const session = (await context.cookies()).find((c) => c.name === 'lead_session')!.value;
  const [, apiKey, apiSecret] = tenant.triple.split(':');
  const shown: string[] = [];
  for (const [tab, label] of [
    ['curl', 'curl command'],
    ['CLI', 'CLI command'],
  ] as const) {
    await call.getByRole('tab', { name: tab }).click();
    const text = (await call.getByLabel(label, { exact: true }).textContent())!;
    expect(text).toContain('$LEAD_SERVICE_TOKEN');
    shown.push(text);
  }
  expect(shown[0]).toMatch(/^curl -X GET '?http:\/\/[^ ]+\/api\/v1\/idap\/businesses\/search\?q=bakery&limit=6/);
  expect(shown[1]).toMatch(
    /^LEAD_SERVICE_TOKEN=\$LEAD_SERVICE_TOKEN lead-service call searchResources --url \S+ --param resource_type=businesses --param q=bakery --param limit=6$/,
  );
  await call.getByRole('tab', { name: 'MCP' }).click();
  shown.push((await call.getByRole('tabpanel').textContent())!);
  expect(shown[2]).toContain('not one of the MCP server');
  for (const text of shown) for (const secret of [session, apiKey, apiSecret]) expect(text).not.toContain(secret);
});

test('the palette with results passes axe in both themes, and fits a phone', async ({ page }) => {
  await signIn(page, tenant.user, '/console/jobs');
  await page.setViewportSize({ width: 390, height: 844 });
  await openPalette(page, 'click');
  await page.keyboard.type('florists');
  await expect(palette(page).getByRole('option', { name: new RegExp(watch.name) })).toBeVisible();
  const box = (await palette(page).boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleInBothThemes(page);
});

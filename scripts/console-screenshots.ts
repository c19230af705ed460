/**
 * npm run console:screenshots: a picture of every console page, at desktop (1280x800) and phone (390x844) width in
 * the light theme (and the jobs list in the dark one too), into docs/console/<page>-<width>.png, for the README and
 * docs/console.md. It starts what the journeys start (console/e2e/support/global-setup.ts: the devstack's engines
 * and the real API with its worker, serving the built console), seeds a tenant through the API as a client would
 * (jobs, the leads they find, a watch, a post), signs in as the tenant's user and visits each page of PAGES in
 * Debian's chromium. The pictures are looked at in review; nothing compares them.
 *
 * PAGES is the one list of what is pictured: a page added to the console gets a row here, and the script is run again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../console/e2e/support/chromium';
import startEngines from '../test/support/global-setup';
import stopEngines from '../test/support/global-teardown';
import { ADMIN, startTestApi } from '../test/support/harness';

const OUT = path.resolve(__dirname, '../docs/console');
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

interface Seeded {
  clientId: string;
  jobId: string;
  watchId: string;
  postId: string;
  businessRef: string;
  brandId: number;
}

interface Shot {
  /** The file's stem: docs/console/<name>-<desktop|phone>.png. */
  name: string;
  path: (s: Seeded) => string;
  /** Not signed in (the sign-in page). */
  signedOut?: boolean;
  /** Signed in as the super admin (administration), acting for the seeded client; else as the client's user. */
  superAdmin?: boolean;
  /** Also in the dark theme (<name>-dark-<width>.png). */
  dark?: boolean;
  /** What to do on the page before the picture (open a dialog). */
  act?: (page: Page) => Promise<void>;
}

/** Every page of the console, once: a placeholder until its area is built shows as one, and is pictured again then. */
const PAGES: Shot[] = [
  { name: 'sign-in', path: () => '/console/sign-in', signedOut: true },
  { name: 'jobs', path: () => '/console/jobs', dark: true },
  { name: 'job', path: (s) => `/console/jobs/${s.jobId}` },
  { name: 'leads', path: () => '/console/leads/businesses' },
  { name: 'lead', path: (s) => `/console/leads/businesses?lead=${encodeURIComponent(s.businessRef)}` },
  { name: 'watches', path: () => '/console/watches' },
  { name: 'watch', path: (s) => `/console/watches/${s.watchId}` },
  { name: 'content', path: () => '/console/content' },
  { name: 'post', path: (s) => `/console/content/posts/${s.postId}` },
  { name: 'credentials', path: () => '/console/credentials' },
  {
    name: 'palette',
    path: () => '/console/jobs',
    act: async (page) => {
      await page.keyboard.press('Control+k');
      await page.getByRole('combobox', { name: 'Search' }).waitFor();
      await page.keyboard.type('bakery');
      await page.getByRole('group', { name: 'Businesses' }).getByRole('option').first().waitFor();
    },
  },
  {
    name: 'shortcuts',
    path: () => '/console/jobs',
    act: async (page) => {
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    },
  },
  { name: 'agents', path: () => '/console/agents', superAdmin: true },
  { name: 'brands', path: () => '/console/brands', superAdmin: true, dark: true },
  { name: 'brand', path: (s) => `/console/brands/${s.brandId}`, superAdmin: true },
  { name: 'users', path: () => '/console/users', superAdmin: true },
  { name: 'activity', path: () => '/console/activity', superAdmin: true },
  { name: 'reports', path: () => '/console/reports', superAdmin: true, dark: true },
  { name: 'system', path: () => '/console/system', superAdmin: true },
];

async function call<T = any>(base: string, method: string, url: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ type: 'text', text }] });

/** A tenant as a small agency has it after a week: jobs done, leads found and one qualified, a watch, a post. */
async function seed(base: string) {
  const admin = (await call(base, 'POST', '/api/v1/auth/login', '', ADMIN)).access_token as string;
  const client = await call(base, 'POST', '/api/v1/dashboard/admin/clients', admin, {
    name: 'Bakkerij Partners',
    admin_email: 'owner@bakkerij-partners.example',
  });
  const user = { email: 'anna@bakkerij-partners.example', password: 'screenshots-password-1' };
  await call(base, 'POST', '/api/v1/dashboard/users', admin, {
    ...user,
    role: 'client_user',
    client_id: client.client_id,
  });
  const triple = `${client.client_id}:${client.api_key}:${client.api_secret}`;
  const jobs = [
    { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 2 },
    { query: 'florist', country_code: 'LU', max_locations: 1 },
    { query: 'coffee roaster', country_code: 'NL', region_codes: ['NL-NH'], max_locations: 1 },
  ];
  const jobIds: string[] = [];
  for (const job of jobs)
    jobIds.push((await call(base, 'POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', triple, job)).job_id);
  for (const id of jobIds)
    await until(`job ${id}`, async () => {
      const { status } = await call(base, 'GET', `/api/v1/dashboard/client/jobs/${id}/status`, triple);
      return ['completed', 'failed', 'cancelled'].includes(status) ? status : undefined;
    });
  const business = await until('the leads in the search', async () => {
    const found = await call(base, 'GET', '/api/v1/idap/businesses/search?q=bakery&limit=1', triple);
    return found.items[0] as { idap_ref: string; resource_id: string } | undefined;
  });
  await call(base, 'PATCH', `/api/v1/idap/businesses/${business.resource_id}/flags`, triple, {
    add: ['qualified'],
  }).catch(() => undefined); // a nicety of the picture, not needed by it
  // The leads list reads up to a settle bound a few seconds behind now (IDAP_SYNC_SETTLE_MS): wait until it lists them.
  await until('the leads in the list', async () => {
    const listed = await call(base, 'GET', '/api/v1/idap/businesses?limit=1', triple);
    return listed.items.length ? true : undefined;
  });
  const watch = await call(base, 'POST', '/api/v1/dashboard/client/watches', triple, {
    name: 'New bakeries in Utrecht',
    maps_scrape: jobs[0],
    cadence: { cron: '0 7 * * MON', time_zone: 'Europe/Amsterdam' },
  });
  const post = await call(base, 'POST', '/api/v1/dashboard/content/posts', triple, {
    title: 'Ten bakeries in Utrecht worth the detour',
    slug: 'ten-bakeries-in-utrecht',
    excerpt: 'Sourdough, stroopwafels and the best appeltaart of the province.',
    author_name: 'Anna de Vries',
    tags: ['Utrecht', 'Bakeries'],
    body: {
      type: 'doc',
      content: [
        paragraph('Utrecht has more craft bakeries than ever; these ten are worth a detour.'),
        paragraph('Each was found by a maps-scrape job and qualified by hand.'),
      ],
    },
  });
  // Administration: a brand of the client, and an agent waiting for its approval.
  const brand = await call(base, 'POST', '/api/v1/brands', triple, {
    brand_name: 'Bakkerij Utrecht',
    slug: 'bakkerij-utrecht',
  });
  await call(base, 'POST', '/api/v1/auth/pat/request', '', {
    client_id: client.client_id,
    owner_email: 'dev@bakkerij-partners.example',
    project_name: 'lead-finder',
    requested_scopes: ['jobs:submit', 'jobs:read'],
    fingerprint: { agent_type: 'claude-code', hostname: 'dev-laptop', cwd: '/home/dev/lead-finder', platform: 'linux' },
  });
  const seeded: Seeded = {
    clientId: client.client_id,
    brandId: brand.brand_id,
    jobId: jobIds[0],
    watchId: watch.watch_id,
    postId: post.id,
    businessRef: business.idap_ref,
  };
  return {
    user,
    seeded,
    cleanup: () => call(base, 'DELETE', `/api/v1/dashboard/client/watches/${watch.watch_id}`, triple),
  };
}

/**
 * A page drawn: its heading shown and no "Loading…" left (the event stream stays open, so never network-idle). A
 * page not built yet on this branch has no heading (the router's not-found): it is pictured as it is, and said so.
 */
async function drawn(page: Page): Promise<boolean> {
  const heading = await page
    .getByRole('heading', { level: 1 })
    .first()
    .waitFor({ timeout: 10_000 })
    .then(() => true)
    .catch(() => false);
  await page
    .getByText('Loading…')
    .first()
    .waitFor({ state: 'detached', timeout: 15_000 })
    .catch(() => undefined);
  await page.waitForTimeout(300); // the last paint of a list that just arrived
  return heading;
}

async function main() {
  await startEngines();
  const api = await startTestApi({ LOGIN_MAX_FAILURES: '1000', LOGIN_ADDRESS_MAX_ACCOUNTS: '1000' });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const { user, seeded, cleanup } = await seed(api.url);
    fs.mkdirSync(OUT, { recursive: true });
    for (const [width, viewport] of Object.entries(WIDTHS)) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({
          baseURL: api.url,
          viewport,
          colorScheme,
          locale: 'en-GB',
          timezoneId: 'Europe/Amsterdam',
          deviceScaleFactor: 1,
        });
        const page = await context.newPage();
        await page.goto('/console/sign-in');
        for (const shot of PAGES.filter((s) => s.signedOut && (colorScheme === 'light' || s.dark)))
          await picture(page, shot, seeded, width, colorScheme);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(user.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(/\/console\/jobs/);
        for (const shot of PAGES.filter((s) => !s.signedOut && !s.superAdmin && (colorScheme === 'light' || s.dark)))
          await picture(page, shot, seeded, width, colorScheme);
        // The administration pages as the super admin sees them, acting for the seeded client (from a page with no
        // dialog left open by the last picture).
        await page.goto('/console/jobs');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('E-mail').fill(ADMIN.email);
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        await page.getByLabel('Acting for').selectOption(seeded.clientId);
        for (const shot of PAGES.filter((s) => s.superAdmin && (colorScheme === 'light' || s.dark)))
          await picture(page, shot, seeded, width, colorScheme);
        await context.close();
      }
    }
    await cleanup();
  } finally {
    await browser.close();
    await api.stop();
    await stopEngines();
  }
}

async function picture(page: Page, shot: Shot, seeded: Seeded, width: string, colorScheme: 'light' | 'dark') {
  await page.goto(shot.path(seeded));
  const built = await drawn(page);
  await shot.act?.(page);
  const file = path.join(OUT, `${shot.name}${colorScheme === 'dark' ? '-dark' : ''}-${width}.png`);
  await page.screenshot({ path: file });
  console.log(`wrote ${path.relative(process.cwd(), file)}${built ? '' : ' (no page heading: not built here yet?)'}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

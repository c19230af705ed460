import { randomBytes } from 'node:crypto';
import { test as base, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { ADMIN } from '../../../test/support/harness';

export { expect };

export interface ConsoleUser {
  email: string;
  password: string;
  role: 'super_admin' | 'brand_admin' | 'client_user';
  clientId: string | null;
}

export interface Tenant {
  clientId: string;
  name: string;
  /** The client's credential triple (for API calls a journey makes to set the scene). */
  triple: string;
  user: ConsoleUser;
  /** The domains that serve the client's public content (X-Content-Domain); empty unless asked for. */
  contentDomains: string[];
}

/** A call to the service as a test sets the scene: JSON in and out, the bearer token given. */
export async function apiCall(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${process.env.E2E_BASE_URL}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return parsed;
}

/** A dashboard user's own bearer token (a login through the API), for what the user's role may call. */
export async function loginToken(user: Pick<ConsoleUser, 'email' | 'password'>): Promise<string> {
  const res = await fetch(`${process.env.E2E_BASE_URL}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  if (!res.ok) throw new Error(`login of ${user.email}: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export const adminToken = (): Promise<string> => loginToken(ADMIN);

/** The status a call answers (for refusals: what a role may not do), its body read and dropped. */
export async function apiStatus(method: string, path: string, token: string, body?: unknown): Promise<number> {
  const res = await fetch(`${process.env.E2E_BASE_URL}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * A fresh client of its own for a journey (no journey sees another's data), with a client_user who signs in; with
 * `contentDomain`, the client also serves a content domain of its own (the public content reads need one).
 */
export async function createTenant(label = 'Acme', options: { contentDomain?: boolean } = {}): Promise<Tenant> {
  const admin = await adminToken();
  const suffix = randomBytes(3).toString('hex');
  const name = `${label} ${suffix}`;
  const contentDomains = options.contentDomain ? [`site-${suffix}.example.test`] : [];
  const client = await apiCall('POST', '/api/v1/dashboard/admin/clients', admin, {
    name,
    admin_email: `owner-${suffix}@example.test`,
    ...(contentDomains.length ? { content_domains: contentDomains } : {}),
  });
  const user: ConsoleUser = {
    email: `user-${suffix}@example.test`,
    password: `console-pass-${suffix}-1`,
    role: 'client_user',
    clientId: client.client_id,
  };
  await apiCall('POST', '/api/v1/dashboard/users', admin, {
    email: user.email,
    role: user.role,
    client_id: user.clientId,
    password: user.password,
  });
  return {
    clientId: client.client_id,
    name,
    triple: `${client.client_id}:${client.api_key}:${client.api_secret}`,
    user,
    contentDomains,
  };
}

export const SUPER_ADMIN: ConsoleUser = { ...ADMIN, role: 'super_admin', clientId: null };

/** A page of the main navigation, by its name. */
export const navLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

/** Signs in through the console's own form, as a person does. */
export async function signIn(page: Page, user: Pick<ConsoleUser, 'email' | 'password'>, path = '/console/') {
  await page.goto(path);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The header's sign-out is there at every width (the navigation folds behind a menu button on a phone).
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/**
 * axe-core's WCAG 2.0/2.1/2.2 A and AA rules on the page as it is drawn now, in the theme the page is emulating:
 * the violations, each with its rule and the elements it found, so a failure says what to fix.
 */
export async function accessibilityViolations(page: Page) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'])
    .analyze();
  return result.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('; ')})`,
  );
}

/**
 * The page in light and then in dark (prefers-color-scheme), axe run on each. Reduced motion is asked for while axe
 * reads: a toast then appears and leaves at once (sonner honours it), where a toast fading out on its own timer would
 * otherwise be read half-transparent, in blended colours no reader ever sees at rest.
 */
export async function expectAccessibleInBothThemes(page: Page) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
    // Colours change with a transition (transition-colors): axe reads them once every transition has ended (a
    // spinner's endless animation is not one).
    await page.waitForFunction(() =>
      document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running'),
    );
    expect(await accessibilityViolations(page), `axe in the ${colorScheme} theme`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: null, reducedMotion: null });
}

/** The service's address (the run's API, started by the global setup) as every journey's base URL. */
export const test = base.extend({
  // Playwright reads a fixture's dependencies from its destructuring pattern: this one has none.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => {
    await use(process.env.E2E_BASE_URL);
  },
});

export interface ChartPoint {
  category: string;
  series: string;
  value: number;
}

/**
 * What a chart (components/chart.tsx) draws, read from its SVG marks: each mark's row, series and value, and
 * where it is drawn. Checks that the drawing is faithful to its own values: a bar's height, or a dot's height
 * above the axis, is one scale times its value for every mark of the chart (within a pixel). Returns the points,
 * for the journey to compare with the API's answer.
 */
export async function drawnChart(page: Page, title: string): Promise<ChartPoint[]> {
  const chart = page.locator(`figure[data-chart="${title}"]`);
  // Attached, not visible: a mark of a zero is a bar of no height (Playwright calls that hidden).
  await expect(chart).toBeVisible();
  await expect(chart.locator('[data-value]').first()).toBeAttached();
  const marks = await chart.locator('[data-value]').evaluateAll((nodes) =>
    nodes.map((node) => {
      const box = (node as SVGGraphicsElement).getBBox();
      return {
        category: node.getAttribute('data-category') ?? '',
        series: node.getAttribute('data-series') ?? '',
        value: Number(node.getAttribute('data-value')),
        tag: node.tagName.toLowerCase(),
        height: box.height,
        centreY: box.y + box.height / 2,
      };
    }),
  );
  const bars = marks.filter((m) => m.tag === 'rect');
  const dots = marks.filter((m) => m.tag === 'circle');
  const largestBar = bars.reduce((best, m) => (m.value > best.value ? m : best), bars[0] ?? { value: 0, height: 0 });
  for (const bar of bars) {
    const expected = largestBar.value ? (bar.value / largestBar.value) * largestBar.height : 0;
    expect(Math.abs(bar.height - expected), `bar ${bar.series} ${bar.category} drawn to its value`).toBeLessThan(1.5);
  }
  // Dots: the vertical position is linear in the value (a higher value higher up), the same line for all.
  const [low, high] = [...dots]
    .sort((a, b) => a.value - b.value)
    .filter((_, i, all) => i === 0 || i === all.length - 1);
  if (low && high && high.value !== low.value) {
    const pixelsPerUnit = (low.centreY - high.centreY) / (high.value - low.value);
    expect(pixelsPerUnit, 'a larger value is drawn higher').toBeGreaterThan(0);
    for (const dot of dots) {
      const expected = low.centreY - (dot.value - low.value) * pixelsPerUnit;
      expect(Math.abs(dot.centreY - expected), `dot ${dot.series} ${dot.category} drawn to its value`).toBeLessThan(
        1.5,
      );
    }
  }
  return marks.map(({ category, series, value }) => ({ category, series, value }));
}

export interface TenantBrand {
  brandId: number;
  brandName: string;
  /** A brand_admin of the tenant's client who administers this brand (a brand member with role admin). */
  admin: ConsoleUser & { userId: string };
}

/**
 * A brand of the tenant's client (made with the client's triple, as an integration would) and a brand_admin of
 * it who signs in to the console.
 */
export async function createBrandWithAdmin(tenant: Tenant, label = 'Brand'): Promise<TenantBrand> {
  const admin = await adminToken();
  const suffix = randomBytes(3).toString('hex');
  const brandName = `${label} ${suffix}`;
  const brand = await apiCall('POST', '/api/v1/brands', tenant.triple, {
    brand_name: brandName,
    slug: `${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${suffix}`,
  });
  const user = {
    email: `brand-admin-${suffix}@example.test`,
    password: `console-pass-${suffix}-2`,
    role: 'brand_admin' as const,
    clientId: tenant.clientId,
  };
  const created = await apiCall('POST', '/api/v1/dashboard/users', admin, {
    email: user.email,
    role: user.role,
    client_id: user.clientId,
    password: user.password,
  });
  await apiCall('POST', `/api/v1/dashboard/users/${created.user_id}/brands`, admin, {
    brand_id: brand.brand_id,
    role: 'admin',
  });
  return { brandId: brand.brand_id, brandName, admin: { ...user, userId: created.user_id } };
}

import type { Browser, Page } from 'puppeteer-core';
import { eventually, useTestApi } from '../support/harness';
import { launchBrowser } from '../support/browser';
import { brandCaller, confirmPin, signupLink, type BrandCaller } from './signup-helpers';
import { withFakeMaps } from './fake-maps';

const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true };
const DESKTOP = { width: 1280, height: 800 };
const MAPS_KEY = 'brand-browser-key-0042';
const SERVER_KEY = 'brand-server-key-9999';

describe('the signup page, in a real browser, from the SMS link to the pin', () => {
  const ctx = useTestApi();
  let browser: Browser;
  let agent: BrandCaller;
  beforeAll(async () => {
    browser = await launchBrowser();
    agent = await brandCaller(ctx.api, ctx.admin, 'Browser Pins');
  });
  afterAll(() => browser?.close());

  const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
  const statusText = (page: Page, selector: string, pattern: RegExp) =>
    eventually(async () => (pattern.test(await text(page, selector)) ? true : undefined));

  async function claimThroughPage(
    name: string,
    phone: string,
    viewport: typeof PHONE | typeof DESKTOP,
    locate: 'geolocation' | 'typed' | 'map',
    who: BrandCaller = agent,
  ) {
    expect((await confirmPin(ctx.api, who, { name, identifier: phone })).status).toBe(202);
    const link = await signupLink(ctx.api, ctx.admin, phone);
    const page = await browser.newPage();
    await page.setViewport(viewport);
    if (locate === 'geolocation') {
      await browser.defaultBrowserContext().overridePermissions(ctx.api.url, ['geolocation']);
      await page.setGeolocation({ latitude: 52.0907, longitude: 5.1214 });
    }
    const elsewhere = locate === 'map' ? await withFakeMaps(page, ctx.api.url) : [];
    const response = await page.goto(link);
    expect(response!.status()).toBe(200);
    const html = await page.content();
    expect(response!.headers()['content-security-policy']).toMatch(/script-src 'nonce-/);
    expect(await text(page, 'h1')).toBe(`Claim NL:${name}`);
    expect(await text(page, '#identifier')).toMatch(/^\+31 6 ••• ••• \d\d$/);
    // Nothing scrolls sideways, on a phone too.
    expect(await page.$eval('html', (el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    if (locate === 'map') {
      // The brand's own maps key loads the map (and only then does the CSP admit the maps script).
      expect(response!.headers()['content-security-policy']).toMatch(/script-src [^;]*https:\/\/maps\.googleapis\.com/);
      await eventually(async () =>
        (await page.$eval('#map', (el) => (el as unknown as { dataset: Record<string, string> }).dataset.fakeMap)) ===
        'ready'
          ? true
          : undefined,
      );
      expect(elsewhere).toEqual([expect.stringContaining(`key=${MAPS_KEY}`)]);
    } else {
      expect(await page.$('#map')).toBeNull(); // no maps key for this brand: the typed address and location instead
    }

    // Try another name: a taken one shows free alternatives.
    await page.type('#other-name', 'race-taken');
    await page.click('#check');
    await statusText(page, '#check-result', /RACE-TAKEN is taken/);
    const suggestions = await page.$$eval('#suggestions li', (lis) => lis.map((li) => li.textContent));
    expect(suggestions.length).toBeGreaterThan(0);
    expect(suggestions).not.toContain('RACE-TAKEN');

    if (locate === 'map') {
      await page.evaluate(() =>
        (globalThis as unknown as { __fakeMap: { click(lat: number, lng: number): void } }).__fakeMap.click(
          52.0907,
          5.1214,
        ),
      );
      expect(await page.$eval('#lat', (el) => (el as unknown as { value: string }).value)).toBe('52.090700');
    } else if (locate === 'geolocation') {
      await page.click('#locate');
      await eventually(async () =>
        (await page.$eval('#lat', (el) => (el as unknown as { value: string }).value)) !== '' ? true : undefined,
      );
    } else {
      await page.type('#lat', '52.0907');
      await page.type('#lng', '5.1214');
    }
    await page.type('#address_road', 'Oudegracht');
    await page.type('#address_house_number', '12');
    await page.type('#address_settlement', 'Utrecht');
    await page.click('#complete');
    await statusText(page, '#result', /is (?:live|being created)/);
    expect(await text(page, '#result')).toMatch(new RegExp(`NL:${name}`));
    await page.close();
    // The agent resolves the claimed pin (it may still be being written when the page said so).
    const pin = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/agent/resolve-pin?pin_id=NL:${name}`, {
        token: who.token,
        headers: who.headers,
      });
      return res.status === 200 ? res.body : undefined;
    });
    expect(pin).toMatchObject({
      pin_id: `NL:${name}`,
      brand_id: who.brandId,
      structured_address: { address_road: 'Oudegracht', address_settlement: 'Utrecht' },
    });
    expect(pin.gps.lat).toBeCloseTo(52.0907, 4);
    expect(pin.gps.lng).toBeCloseTo(5.1214, 4);
    return { html, link };
  }

  /** What the signup resolve operation tells the page about the maps key. */
  const mapsKeyOf = async (link: string) =>
    (
      await ctx.api.call(
        'GET',
        `/api/v1/signup/resolve?token=${encodeURIComponent(new URL(link).searchParams.get('token')!)}`,
      )
    ).body.maps_byok_key_or_null;

  beforeAll(async () => {
    expect((await confirmPin(ctx.api, agent, { name: 'RACE-TAKEN', identifier: '+31600000001' })).status).toBe(202);
  });

  it("on a phone, placing the pin with the phone's location", () =>
    claimThroughPage('PHONE-PIN', '+31611111111', PHONE, 'geolocation'));

  it('on a desktop, with typed coordinates and address', () =>
    claimThroughPage('DESK-PIN', '+31622222222', DESKTOP, 'typed'));

  it("with the brand's browser key, placing the pin by clicking the map; the server key never reaches it", async () => {
    const mapped = await brandCaller(ctx.api, ctx.admin, 'Mapped Pins');
    const key = await ctx.api.call('POST', `/api/v1/brands/${mapped.brandId}/integrations`, {
      token: mapped.token,
      body: {
        provider_name: 'maps',
        key_label: 'Signup map',
        credentials: { api_key: SERVER_KEY, browser_key: MAPS_KEY },
        is_primary: true,
      },
    });
    expect(key.status).toBe(201);
    const { html, link } = await claimThroughPage('MAP-PIN', '+31633333333', PHONE, 'map', mapped);
    expect(html).not.toContain(SERVER_KEY);
    expect(await mapsKeyOf(link)).toBe(MAPS_KEY);
  });

  it('a maps integration without a browser key gives the page no key, and the page works without a map', async () => {
    const serverOnly = await brandCaller(ctx.api, ctx.admin, 'Server Key Only');
    const key = await ctx.api.call('POST', `/api/v1/brands/${serverOnly.brandId}/integrations`, {
      token: serverOnly.token,
      body: { provider_name: 'maps', key_label: 'Relays', credentials: { api_key: SERVER_KEY }, is_primary: true },
    });
    expect(key.status).toBe(201);
    const { html, link } = await claimThroughPage('NO-MAP-PIN', '+31644444444', PHONE, 'typed', serverOnly);
    expect(html).not.toContain(SERVER_KEY);
    expect(await mapsKeyOf(link)).toBeNull();
  });

  it('a broken link shows why, with 401', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${ctx.api.url}/signup?token=sgt2.d1.bad.bad`);
    expect(response!.status()).toBe(401);
    expect(await text(page, '#result')).toMatch(/invalid or has expired/);
    await page.close();
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { ProviderError, providerFailure } from '../../src/providers/errors';
import { createMapsProvider } from '../../src/providers/maps';
import { createResearchProvider } from '../../src/providers/research';
import { placesFor } from '../../src/sandbox/maps-data';
import { renderPage, siteFor } from '../../src/sandbox/research-site';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(() => sandbox.faults.reset());

const AMS = { lat: 52.37, lng: 4.89 };

async function expectProviderError(p: Promise<unknown>, kind: string, status?: number) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  expect(err.kind).toBe(kind);
  if (status) expect(err.status).toBe(status);
  return err as ProviderError;
}

describe('maps adapter against the sandbox', () => {
  // Answers come in milliseconds; the bound is generous so a loaded CI machine never turns one into a timeout.
  const maps = (timeoutMs = 10_000) => createMapsProvider({ baseUrl: sandbox.url, key: 'k', timeoutMs });

  it('pages through a text search with next_page_token and returns the deterministic places', async () => {
    const expected = placesFor('bakery in Amsterdam', AMS.lat, AMS.lng, 'nl');
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await maps().textSearch({
        query: 'bakery in Amsterdam',
        location: AMS,
        region: 'NL',
        pageToken: token,
      });
      seen.push(...page.places.map((p) => p.placeId));
      token = page.nextPageToken ?? undefined;
      pages += 1;
    } while (token);
    expect(seen).toEqual(expected.map((p) => p.place_id));
    expect(pages).toBe(Math.ceil(expected.length / 20));
    const first = (await maps().textSearch({ query: 'bakery in Amsterdam', location: AMS, region: 'nl' })).places[2];
    expect(first.name).toBe(expected[2].name);
    expect(first.location).toEqual(expected[2].geometry.location);
    expect(
      first.photoUrls.every((u) => u.startsWith(`${sandbox.url}/maps/api/place/photo?`) && !u.includes('key=')),
    ).toBe(true);
  });

  it('is deterministic per query and location and shares chain places across locations', () => {
    const a = placesFor('bakery in Amsterdam', AMS.lat, AMS.lng, 'nl');
    const b = placesFor('bakery in Utrecht', 52.09, 5.12, 'nl');
    expect(placesFor('bakery in Amsterdam', AMS.lat, AMS.lng, 'nl')).toEqual(a);
    const shared = a.filter((p) => b.some((q) => q.place_id === p.place_id));
    expect(shared).toHaveLength(2);
  });

  it('classifies 429 and 5xx as retryable, other 4xx and refused keys as not', async () => {
    const rate = await expectProviderError(
      maps().textSearch({ query: 'x sbx-fail-429', location: AMS }),
      'rate_limited',
      429,
    );
    expect(rate.retryable).toBe(true);
    expect(
      (await expectProviderError(maps().textSearch({ query: 'x sbx-fail-503', location: AMS }), 'unavailable', 503))
        .retryable,
    ).toBe(true);
    expect(
      (await expectProviderError(maps().textSearch({ query: 'x sbx-fail-403', location: AMS }), 'rejected', 403))
        .retryable,
    ).toBe(false);
    const denied = createMapsProvider({ baseUrl: sandbox.url, key: 'sbx-invalid' });
    const err = await expectProviderError(denied.textSearch({ query: 'x' }), 'rejected');
    expect(err.message).toMatch(/REQUEST_DENIED/);
  });

  it('fails only the first N requests of a subject with sbx-fail-CODE-xN', async () => {
    await expectProviderError(maps().textSearch({ query: 'cafe sbx-fail-500-x2', location: AMS }), 'unavailable', 500);
    await expectProviderError(maps().textSearch({ query: 'cafe sbx-fail-500-x2', location: AMS }), 'unavailable', 500);
    const ok = await maps().textSearch({ query: 'cafe sbx-fail-500-x2', location: AMS });
    expect(ok.places.map((p) => p.placeId)).toEqual(
      placesFor('cafe', AMS.lat, AMS.lng)
        .slice(0, 20)
        .map((p) => p.place_id),
    );
    expect(sandbox.faults.stats.statuses).toEqual({ 200: 1, 500: 2 });
  });

  it('treats a malformed body as retryable and a slow answer as a timeout', async () => {
    await expectProviderError(maps().textSearch({ query: 'cafe sbx-malformed' }), 'malformed');
    const slow = await expectProviderError(maps(500).textSearch({ query: 'cafe sbx-slow-1500' }), 'unavailable');
    expect(slow.message).toMatch(/no answer within 500 ms/);
  });

  it('takes faults from the control endpoint', async () => {
    const res = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ target: 'maps', status: 429, times: 1 }),
    });
    expect(res.status).toBe(204);
    await expectProviderError(maps().textSearch({ query: 'cafe' }), 'rate_limited', 429);
    expect((await maps().textSearch({ query: 'cafe' })).places.length).toBeGreaterThan(0);
  });

  it('answers network failures as retryable', async () => {
    const gone = createMapsProvider({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    expect((await expectProviderError(gone.textSearch({ query: 'x' }), 'unavailable')).retryable).toBe(true);
  });
});

describe('research adapter against the sandbox', () => {
  const research = () => createResearchProvider({ baseUrl: `${sandbox.url}/research`, timeoutMs: 10_000 });

  it('fetches company pages as HTML and answers null for a missing page', async () => {
    const site = siteFor('golden-bakery-1a2b.example');
    const home = await research().fetchPage('https://golden-bakery-1a2b.example/');
    expect(home?.html).toBe(renderPage('golden-bakery-1a2b.example', '/'));
    expect(home?.html).toContain(site.emails[0]);
    const team = await research().fetchPage('https://golden-bakery-1a2b.example/team');
    for (const p of site.people) expect(team?.html).toContain(p.name);
    expect(await research().fetchPage('https://golden-bakery-1a2b.example/nope')).toBeNull();
    expect(await research().fetchPage('https://nosite-corp.example/')).toBeNull();
  });

  it('classifies failures like the maps adapter', async () => {
    await expectProviderError(research().fetchPage('https://acme-sbx-fail-429.example/'), 'rate_limited', 429);
    await expectProviderError(research().fetchPage('https://acme-sbx-fail-401.example/'), 'rejected', 401);
    await expectProviderError(research().fetchPage('https://acme-sbx-malformed.example/'), 'malformed');
  });

  it('sends its key in the X-Api-Key header, never in the URL (which traces and proxy logs record)', async () => {
    const page = 'https://golden-bakery-1a2b.example/';
    const keyed = createResearchProvider({ baseUrl: `${sandbox.url}/research`, key: 'research-key-1' });
    expect((await keyed.fetchPage(page))?.html).toContain('<html');
    // The sandbox refuses `sbx-invalid` from the header only: refused, the key was read from there.
    const denied = createResearchProvider({ baseUrl: `${sandbox.url}/research`, key: 'sbx-invalid' });
    await expectProviderError(denied.fetchPage(page), 'rejected', 401);
  });
});

describe('providerFailure', () => {
  it('maps provider errors to Temporal failures: retryable with Retry-After, or non-retryable', () => {
    const retry = providerFailure(
      new ProviderError('maps', 'rate_limited', 'slow down', 429, 2000),
    ) as ApplicationFailure;
    expect(retry).toBeInstanceOf(ApplicationFailure);
    expect(retry.nonRetryable).toBe(false);
    expect(retry.nextRetryDelay).toBe(2000);
    const fatal = providerFailure(new ProviderError('maps', 'rejected', 'bad key', 403)) as ApplicationFailure;
    expect(fatal.nonRetryable).toBe(true);
    expect(fatal.type).toBe('Provider_rejected');
    const other = new Error('x');
    expect(providerFailure(other)).toBe(other);
  });
});

import { registry } from '../../../src/lib/metrics';
import { seedResources } from '../../support/resources';
import { createClient, eventually, indexLock, startTestApi, type TestApi } from '../../support/harness';

const FIRST = ['Golden', 'Royal', 'Green', 'Old', 'Grand', 'Silver', 'Little'];
const SECOND = ['Bakery', 'Cafe', 'Mill', 'Bistro', 'Garden', 'Market', 'Diner', 'Deli', 'Forge', 'Salon', 'Tavern'];
const STREETS = ['High Street', 'Mill Lane', 'Market Square', 'Station Road', 'Church Street', 'Garden Walk'];
const CITIES = ['Utrecht', 'Leiden', 'Delft', 'Gouda'];
/** One-word searches, each its own term: a tenant searching them all reads far more than a small cache holds. */
const WORDS = [...FIRST, ...SECOND, ...STREETS.flatMap((s) => s.split(' ')), ...CITIES]
  .map((w) => w.toLowerCase())
  .filter((w, i, all) => all.indexOf(w) === i);

function business(i: number) {
  return {
    type: 'businesses' as const,
    naturalKey: `place-${i}`,
    data: {
      name: `${FIRST[i % FIRST.length]} ${SECOND[(i * 3) % SECOND.length]}`,
      address: `${(i % 40) + 1} ${STREETS[(i * 5) % STREETS.length]}, ${CITIES[i % CITIES.length]}`,
    },
  };
}

/** The searches this process answered from its IDAP cache alone (hit), with database reads (miss), or uncached. */
async function searchLookups(): Promise<Record<'hit' | 'miss' | 'bypass', number>> {
  const values = (await registry.getSingleMetric('lead_cache_lookups_total')!.get()).values;
  const of = (result: string) =>
    values.find((v) => v.labels.cache === 'idap_search' && v.labels.result === result)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss'), bypass: of('bypass') };
}

/** A tenant with `n` businesses indexed, searched with its own credential through the API. */
async function tenant(api: TestApi, name: string, n: number) {
  const client = await createClient(api, await api.login(), name);
  await seedResources(
    client.client_id,
    Array.from({ length: n }, (_, i) => business(i)),
    indexLock(api),
  );
  /** Searches `q` (a trailing space: no prefix completions); answers whether the cache alone answered it. */
  const search = async (q: string): Promise<'hit' | 'miss' | 'bypass'> => {
    const before = await searchLookups();
    const res = await api.call('GET', `/api/v1/idap/businesses/search?${new URLSearchParams({ q: `${q} ` })}`, {
      token: client.triple,
    });
    expect(res.status).toBe(200);
    const after = await searchLookups();
    const moved = (['hit', 'miss', 'bypass'] as const).filter((r) => after[r] !== before[r]);
    expect(moved).toHaveLength(1);
    return moved[0];
  };
  return { ...client, search };
}

/**
 * The IDAP read cache's bounds (src/idap/index-reads.ts, docs/idap.md "The cache's bounds"), seen through the API
 * and the per-search cache metric (lead_cache_lookups_total{cache="idap_search"}: a hit is a search that read
 * nothing from the database). The API and these tests share one process: its registry is the one a scrape reads.
 */
describe("the IDAP read cache: one tenant's searches never evict another tenant's entries", () => {
  let api: TestApi;
  // Small bounds, so that a few searches reach them (the defaults: 500,000 units, 250,000 per tenant).
  beforeAll(async () => {
    api = await startTestApi({ IDAP_CACHE_MAX_UNITS: '3000', IDAP_CACHE_TENANT_MAX_UNITS: '2000' });
  });
  afterAll(() => api?.stop());

  it('a busy tenant past its bound gives up its own entries; past the whole bound, the largest gives way', async () => {
    const quiet = await tenant(api, 'Cache Quiet', 20);
    const busy = await tenant(api, 'Cache Busy', 300);
    const other = await tenant(api, 'Cache Other Busy', 300);
    // A process caches once its subscription to changes is in place (its first search makes it).
    await eventually(async () => ((await quiet.search('bakery')) === 'hit' ? true : undefined));

    const reads = api.rt.modules.idap.reads;
    for (const word of WORDS) await busy.search(word);
    // The busy tenant read more than its bound holds: its first search is read again.
    expect(await busy.search(WORDS[0])).toBe('miss');
    expect(await quiet.search('bakery')).toBe('hit');
    const busyHeld = reads.size(busy.client_id);
    expect(busyHeld).toBeGreaterThan(1000);
    expect(busyHeld).toBeLessThanOrEqual(2000);

    // Two busy tenants hold more than the whole cache: the one holding most gives way, never the quiet one.
    for (const word of WORDS) await other.search(word);
    expect(await quiet.search('bakery')).toBe('hit');
    expect(reads.size()).toBeLessThanOrEqual(3000);
    expect(reads.size(busy.client_id)).toBeLessThan(busyHeld); // it searched nothing meanwhile: it gave way
  });
});

describe('the IDAP read cache: each vocabulary map is bounded', () => {
  let api: TestApi;
  const MAX_TERMS = 4;
  beforeAll(async () => {
    api = await startTestApi({ IDAP_CACHE_MAX_TERMS: String(MAX_TERMS) });
  });
  afterAll(() => api?.stop());

  it('keeps the most recently searched terms, the least recently used going first', async () => {
    // Few businesses, so that the searches stay far below the units' bounds: only the vocabulary's bound binds.
    const small = await tenant(api, 'Cache Vocabulary', 12);
    await eventually(async () => ((await small.search('golden')) === 'hit' ? true : undefined));
    const words = WORDS.filter((w) => w !== 'golden').slice(0, MAX_TERMS);
    for (const word of words) expect(await small.search(word)).toBe('miss');
    // The last MAX_TERMS terms are kept; `golden`, searched before them, is read again (and kept again).
    for (const word of words) expect(await small.search(word)).toBe('hit');
    expect(await small.search('golden')).toBe('miss');
    expect(await small.search('golden')).toBe('hit');
    expect(api.rt.modules.idap.reads.size()).toBeLessThan(2000);
  });
});

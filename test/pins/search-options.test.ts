import { useTestApi } from '../support/harness';
import { brandCaller, pinTestEnv, seedPins } from './pin-fixtures';
import { SEARCH_PINS } from './search-fixtures';

/** search-pins beyond the filter: q, sort (with _geoPoint), both paging modes, facets, attributesToRetrieve. */
describe('search-pins: query, sort, paging, facets and attributes', () => {
  const ctx = useTestApi(pinTestEnv());
  let caller: Awaited<ReturnType<typeof brandCaller>>;
  beforeAll(async () => {
    caller = await brandCaller(ctx.api, ctx.admin, 901, 'Options');
    await seedPins(ctx.api, caller.clientId, SEARCH_PINS);
  });
  const search = (body: Record<string, unknown>) =>
    ctx.api.call('POST', '/api/v1/agent/search-pins', { token: caller.token, headers: caller.headers, body });
  const namesOf = (body: { hits: Array<{ name: string }> }) => body.hits.map((h) => h.name);

  it('finds words, a prefix of the last word and a word with a typo', async () => {
    expect(namesOf((await search({ q: 'bakkerij' })).body)).toEqual(['BAKKERIJ-DE-ZON']);
    expect(namesOf((await search({ q: 'bakery', sort: ['name:asc'] })).body)).toEqual([
      'BACKHAUS-BERLIN',
      'BAKKERIJ-DE-ZON',
    ]);
    expect(namesOf((await search({ q: 'fiet' })).body)).toEqual(['FIETS-CENTRUM']);
    expect(namesOf((await search({ q: 'kashuis' })).body)).toEqual(['KAASHUIS']);
    const res = await search({ q: 'utrecht', filter: 'business.category = Bikes' });
    expect(res.body).toMatchObject({ query: 'utrecht', estimatedTotalHits: 1 });
    expect((await search({ q: 'nothing-like-this' })).body.hits).toEqual([]);
  });

  it('sorts by fields, ascending and descending', async () => {
    expect(namesOf((await search({ sort: ['name:asc'] })).body)).toEqual([
      'BACKHAUS-BERLIN',
      'BAKKERIJ-DE-ZON',
      'FIETS-CENTRUM',
      'FRITUUR-ANTWERPEN',
      'KAASHUIS',
    ]);
    expect(namesOf((await search({ sort: ['business.category:asc', 'name:desc'] })).body)).toEqual([
      'BAKKERIJ-DE-ZON',
      'BACKHAUS-BERLIN',
      'FIETS-CENTRUM',
      'KAASHUIS',
      'FRITUUR-ANTWERPEN',
    ]);
  });

  it('sorts by distance from a point and reports _geoDistance', async () => {
    const res = await search({ sort: ['_geoPoint(52.3731, 4.8922):asc'], filter: 'country_code = NL' });
    // Fiets Centrum lies a little west of the bakery
    expect(namesOf(res.body)).toEqual(['KAASHUIS', 'FIETS-CENTRUM', 'BAKKERIJ-DE-ZON']);
    expect(res.body.hits[0]._geoDistance).toBe(0);
    expect(res.body.hits[1]._geoDistance).toBeGreaterThan(30_000);
    expect(res.body.hits[1]._geoDistance).toBeLessThan(40_000);
    const far = await search({ sort: ['_geoPoint(52.3731, 4.8922):desc'] });
    expect(namesOf(far.body)[0]).toBe('BACKHAUS-BERLIN');
  });

  it('refuses a sort it cannot apply', async () => {
    for (const sort of [['rating:asc'], ['name:up'], ['name'], ['_geoPoint(1):asc'], ['_geo:asc']]) {
      const res = await search({ sort });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_search_sort');
    }
  });

  it('pages with limit and offset (estimatedTotalHits) or page and hitsPerPage (totalHits, totalPages)', async () => {
    const byOffset = await search({ sort: ['name:asc'], limit: 2, offset: 1 });
    expect(byOffset.body).toMatchObject({ limit: 2, offset: 1, estimatedTotalHits: 5 });
    expect(namesOf(byOffset.body)).toEqual(['BAKKERIJ-DE-ZON', 'FIETS-CENTRUM']);
    expect(byOffset.body.totalPages).toBeUndefined();
    const byPage = await search({ sort: ['name:asc'], hitsPerPage: 2, page: 3 });
    expect(byPage.body).toMatchObject({ hitsPerPage: 2, page: 3, totalPages: 3, totalHits: 5 });
    expect(namesOf(byPage.body)).toEqual(['KAASHUIS']);
    expect(byPage.body.estimatedTotalHits).toBeUndefined();
  });

  it('counts facet values and reports numeric facet stats over all matches', async () => {
    const res = await search({ facets: ['business.category', 'business.rating'], limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body.facetDistribution['business.category']).toEqual({ Bakery: 2, Bikes: 1, Cheese: 1, Snacks: 1 });
    expect(res.body.facetStats['business.rating']).toEqual({ min: 3.2, max: 4.8 });
    const refused = await search({ facets: ['rating'] });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_search_facets');
  });

  it('returns only the attributes asked for, and never the internals', async () => {
    const res = await search({ filter: 'pin_id = "NL:KAASHUIS"', attributesToRetrieve: ['name', 'business.category'] });
    expect(res.body.hits).toEqual([{ name: 'KAASHUIS', business: { category: 'Cheese' } }]);
    const full = (await search({ filter: 'pin_id = "NL:KAASHUIS"' })).body.hits[0];
    expect(full).toMatchObject({
      pin_id: 'NL:KAASHUIS',
      country_code: 'NL',
      gps: { lat: 52.3731, lng: 4.8922 },
      brand_id: 901,
    });
    expect(Object.keys(full)).not.toEqual(expect.arrayContaining(['id']));
    expect(full.subscription_status).toBeUndefined();
    expect(full.client_id).toBeUndefined();
  });

  it("refuses an unknown search parameter with Meilisearch's code", async () => {
    const res = await search({ colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
  });
});

import { useTestApi } from '../support/harness';
import { brandCaller, pinTestEnv, seedPins } from './pin-fixtures';
import { FILTER_CASES, MALFORMED_FILTERS, SEARCH_PINS } from './search-fixtures';

/**
 * Meilisearch's filter grammar against the search engine the service is configured with: the built-in
 * engine here; set MEILISEARCH_URL (and MEILISEARCH_API_KEY) to run the same table against a real
 * Meilisearch (docs/pins.md).
 */
describe('search-pins: the filter grammar', () => {
  const ctx = useTestApi(pinTestEnv());
  let caller: Awaited<ReturnType<typeof brandCaller>>;
  beforeAll(async () => {
    caller = await brandCaller(ctx.api, ctx.admin, 901, 'Grammar');
    await seedPins(ctx.api, caller.clientId, SEARCH_PINS);
  });
  const search = (body: Record<string, unknown>) =>
    ctx.api.call('POST', '/api/v1/agent/search-pins', { token: caller.token, headers: caller.headers, body });
  const idsOf = (body: { hits: Array<{ pin_id: string }> }) => body.hits.map((h) => h.pin_id).sort();

  it.each(FILTER_CASES)('%s', async (_name, filter, expected) => {
    const res = await search({ filter, limit: 100 });
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([...expected].sort());
    expect(res.body.estimatedTotalHits).toBe(expected.length);
  });

  it.each(MALFORMED_FILTERS)('refuses a malformed filter: %s', async (_name, filter) => {
    const res = await search({ filter });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_search_filter');
    expect(res.body.detail).toEqual(expect.any(String));
  });

  it('lists every served pin for an empty body, and never a lapsed or ended one', async () => {
    const res = await search({});
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([
      'BE:FRITUUR-ANTWERPEN',
      'DE:BACKHAUS-BERLIN',
      'NL:BAKKERIJ-DE-ZON',
      'NL:FIETS-CENTRUM',
      'NL:KAASHUIS',
    ]);
    expect(res.body).toMatchObject({ query: '', limit: 20, offset: 0, estimatedTotalHits: 5 });
    expect(res.body.processingTimeMs).toEqual(expect.any(Number));
  });
});

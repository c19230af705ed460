import { createClient, useTestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, expectedPlaces, jobPath, waitForStatus } from '../jobs/support';

/** The two halves meet: what a maps-scrape job writes is found by search and fetched by batch. */
describe('lead data written by a job', () => {
  const ctx = useTestApi(FAST_RETRIES);

  it('is searchable and fetchable as soon as the job completes', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Searchable Co');
    const params = { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 2 };
    const submitted = await ctx.api.call('POST', SUBMIT, { token: acme.triple, body: params });
    const job = await waitForStatus(ctx.api, acme.triple, jobPath(submitted.body.job_id), ['completed', 'failed'], 60_000);
    expect(job.status).toBe('completed');

    const place = expectedPlaces(params)[0];
    const search = await ctx.api.call('GET', `/api/v1/idap/businesses/search?q=${encodeURIComponent(place.name)}&limit=5`, { token: acme.triple });
    expect(search.status).toBe(200);
    expect(search.body.items.length).toBeGreaterThan(0);
    expect(search.body.items[0].data.name).toBe(place.name);

    const ref = search.body.items[0].idap_ref;
    const batch = await ctx.api.call('POST', '/api/v1/idap/batch', { token: acme.triple, body: { refs: [ref], include: 'domains,phones' } });
    expect(batch.body.results[ref].data.place_id).toBe(place.place_id);

    const other = await createClient(ctx.api, ctx.admin, 'Other Co');
    const foreign = await ctx.api.call('GET', `/api/v1/idap/businesses/search?q=${encodeURIComponent(place.name)}`, { token: other.triple });
    expect(foreign.body.items).toEqual([]);
  });
});

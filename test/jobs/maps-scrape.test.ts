import { ResourceModel } from '../../src/idap/resources/resource.model';
import { resourceId } from '../../src/idap/resources/resource-writes';
import { JobItemModel, JobModel, jobItemId, jobItemsOf } from '../../src/jobs/job.model';
import { scrapeLocation } from '../../src/jobs/maps-scrape';
import type { MapsPlace } from '../../src/providers/maps';
import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, expectedPlaces, jobPath, stepStore, waitForStatus } from './support';
import { WorkflowNotFoundError } from '@temporalio/client';
import { jobIndexWorkflowId, jobWorkflowId } from '../../workflows/jobs-signals';

let api: TestApi;
let admin: string;
let acme: Awaited<ReturnType<typeof createClient>>;

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Maps');
});
afterAll(() => api.stop());

const params = { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 3 };

describe('maps-scrape jobs', () => {
  let jobId: string;

  it('runs a job location by location and stores de-duplicated businesses as IDAP resources', async () => {
    const res = await api.call('POST', SUBMIT, { token: acme.triple, body: params });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      job_id: expect.any(String),
      type: 'maps-scrape',
      status: 'queued',
      max_locations: 3,
      max_results: null, // no cap of the client's: none given, none applied
      created_at: expect.any(String),
    });
    jobId = res.body.job_id;
    const job = await waitForStatus(api, acme.triple, jobPath(jobId), ['completed', 'failed']);
    const expected = expectedPlaces(params);
    expect(job).toMatchObject({
      job_id: jobId,
      type: 'maps-scrape',
      status: 'completed',
      client_id: acme.client_id,
      query: 'bakery',
      country_code: 'NL',
      region_codes: ['NL-UT'],
      max_locations: 3,
      max_results: null,
      progress: { done: 3, total: 3 },
      results_count: expected.length,
      error: null,
    });
    expect(job.processing_time).toBeGreaterThanOrEqual(0);
    expect(job.started_at).not.toBeNull();
    const businesses = await ResourceModel.find({
      client_id: acme.client_id,
      resource_type: 'businesses',
      source_job_ids: jobId,
    }).lean();
    expect(businesses).toHaveLength(expected.length);
    expect(new Set(businesses.map((b: any) => b.data.place_id))).toEqual(new Set(expected.map((p) => p.place_id)));
    const withSite = expected.filter((p) => p.website);
    const domains = await ResourceModel.countDocuments({
      client_id: acme.client_id,
      resource_type: 'domains',
      source_job_ids: jobId,
    });
    expect(domains).toBe(new Set(withSite.map((p) => new URL(p.website!).hostname)).size);
    const sample = businesses.find((b: any) => b.data.website) as any;
    expect(sample.related.some((r: string) => r.startsWith('idap://domains/'))).toBe(true);
    // Photos are stored as media (docs/decisions.md §6) and listed as idap://media refs.
    const withPhotos = businesses.find((b: any) => b.data.photo_urls.length) as any;
    const place = expected.find((p) => p.place_id === withPhotos.data.place_id)!;
    expect(withPhotos.data.photos).toHaveLength(place.photos.length);
    expect(withPhotos.data.photos[0]).toMatch(/^idap:\/\/media\/[0-9a-f-]{36}$/);
    expect(new Set(businesses.flatMap((b: any) => b.data.photos)).size).toBe(
      expected.reduce((n, p) => n + p.photos.length, 0),
    );
    const media = await fetch(`${api.url}/api/v1/idap/media/${withPhotos.data.photos[0].split('/').pop()}`, {
      headers: { authorization: `Bearer ${acme.triple}` },
    });
    expect([media.status, media.headers.get('content-type')]).toEqual([200, 'image/png']);

    // The job fed what it stored to the search index as it went: by job.completed every business is found, at once.
    for (const target of [expected[0], expected[5], expected[expected.length - 1]]) {
      const found = await api.call(
        'GET',
        `/api/v1/idap/businesses/search?q=${encodeURIComponent(target.name)}&limit=100`,
        { token: acme.triple },
      );
      expect(found.body.items.map((i: any) => i.data.place_id)).toContain(target.place_id);
    }
    // Its feed took every resource it stored, in a first attempt: the job's run ended without starting the
    // follow-up index workflow (the safety net for a feed that missed something), which would only read them again.
    const { workflow } = api.rt.engines.temporal;
    expect(await workflow.getHandle(jobWorkflowId(jobId)).result()).toMatchObject({ status: 'completed' });
    await expect(workflow.getHandle(jobIndexWorkflowId(jobId)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });

  it('pages through results in the order found and exports CSV and JSON Lines', async () => {
    const expected = expectedPlaces(params);
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const res = await api.call('GET', `${jobPath(jobId, 'results')}?page=${page}&page_size=20`, {
        token: acme.triple,
      });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(expected.length);
      seen.push(...res.body.results.map((r: any) => r.name));
      if (res.body.results.length < 20) break;
    }
    expect(seen).toEqual(expected.map((p) => p.name));
    const first = (await api.call('GET', `${jobPath(jobId, 'results')}?page_size=1`, { token: acme.triple })).body
      .results[0];
    expect(first).toMatchObject({
      idap_ref: expect.stringMatching(/^idap:\/\/businesses\//),
      name: expected[0].name,
      country_code: 'NL',
      region_code: 'NL-UT',
    });
    expect(first.photos).toHaveLength(expected[0].photos.length);

    const csv = await api.call('GET', `${jobPath(jobId, 'results')}?format=csv`, { token: acme.triple });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="job-${jobId}.csv"`);
    const lines = (csv.body as string).trim().split('\r\n');
    expect(lines[0]).toBe(
      'idap_ref,name,category,address,country_code,region_code,lat,lng,phone,website,rating,reviews_count',
    );
    expect(lines).toHaveLength(expected.length + 1);
    const jsonl = await api.call('GET', `${jobPath(jobId, 'results')}?format=jsonl`, { token: acme.triple });
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const rows = (jsonl.body as string)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.name)).toEqual(expected.map((p) => p.name));
  });

  it('stops at max_results exactly and never duplicates resources when a job runs again', async () => {
    const before = await ResourceModel.countDocuments({ client_id: acme.client_id, resource_type: 'businesses' });
    const capped = { ...params, max_results: 25 };
    const res = await api.call('POST', SUBMIT, { token: acme.triple, body: capped });
    const job = await waitForStatus(api, acme.triple, jobPath(res.body.job_id), ['completed', 'failed']);
    expect(job.results_count).toBe(25);
    expect(job.status).toBe('completed');
    expect(await ResourceModel.countDocuments({ client_id: acme.client_id, resource_type: 'businesses' })).toBe(before);
    const both = await ResourceModel.countDocuments({
      client_id: acme.client_id,
      resource_type: 'businesses',
      source_job_ids: { $all: [jobId, res.body.job_id] },
    });
    expect(both).toBe(25);
  });

  it('answers 409 for results of a job that is not completed and for cancelling a finished job', async () => {
    const res = await api.call('POST', SUBMIT, {
      token: acme.triple,
      body: { ...params, query: 'slow bakery sbx-slow-1500' },
    });
    const results = await api.call('GET', jobPath(res.body.job_id, 'results'), { token: acme.triple });
    expect(results.status).toBe(409);
    expect(results.body.detail).toMatch(/not completed/);
    const cancelled = await api.call('POST', jobPath(res.body.job_id, 'cancel'), { token: acme.triple });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', message: 'Cancelled by user' });
    const again = await api.call('POST', jobPath(res.body.job_id, 'cancel'), { token: acme.triple });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('Job is already cancelled');
    // Cancelled while running, or before its first step read the job: the run ends cancelled either way.
    const handle = api.rt.engines.temporal.workflow.getHandle(jobWorkflowId(res.body.job_id));
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect((await api.call('POST', jobPath(jobId, 'cancel'), { token: acme.triple })).status).toBe(409);
  });

  it('a location finishing as its job is cancelled writes nothing after the cancel', async () => {
    const store = stepStore(api);
    const res = await api.call('POST', SUBMIT, {
      token: acme.triple,
      body: { ...params, query: 'slow bakery sbx-slow-1500' },
    });
    const id = res.body.job_id as string;
    await waitForStatus(api, acme.triple, jobPath(id), ['processing']);
    const places: MapsPlace[] = [0, 1, 2].map((i) => ({
      placeId: `cancel-race-${i}`,
      name: `Cancel race ${i}`,
      address: null,
      location: null,
      types: ['bakery'],
      rating: null,
      reviewsCount: null,
      website: `https://cancel-race-${i}.example`,
      phone: null,
      photoUrls: [],
    }));
    // The location's search has answered, and the job is cancelled while its photos are being stored.
    const scraped = await scrapeLocation(
      {
        maps: { textSearch: async () => ({ places, nextPageToken: null }) },
        store,
        storePhotos: async (_clientId, urlsByPlace) => {
          expect((await api.call('POST', jobPath(id, 'cancel'), { token: acme.triple })).status).toBe(200);
          return urlsByPlace.map(() => []);
        },
      },
      {
        job_id: id,
        client_id: acme.client_id,
        params: { ...params, max_results: undefined },
        location: {
          name: 'Utrecht',
          region_code: 'NL-UT',
          region_name: 'Utrecht',
          lat: 52.09,
          lng: 5.12,
          radius_m: 5000,
        },
        index: 0,
        total: 1,
        count: 0,
      },
    );
    expect(scraped).toEqual({ results_count: 0, found: 3 });
    const ids = places.map((p) => jobItemId(id, 'result', p.placeId));
    expect(await JobItemModel.countDocuments({ _id: { $in: ids }, client_id: acme.client_id })).toBe(0);
    const businesses = places.map((p) => resourceId(acme.client_id, 'businesses', p.placeId));
    expect(await ResourceModel.countDocuments({ _id: { $in: businesses }, client_id: acme.client_id })).toBe(0);
    // What the cancelled job says it found is what it keeps, whatever its own run had written before the cancel.
    const job = await api.call('GET', jobPath(id), { token: acme.triple });
    expect(job.body.status).toBe('cancelled');
    expect(await JobItemModel.countDocuments(jobItemsOf(acme.client_id, id, 'result'))).toBe(job.body.results_count);
  });

  it('starts and lists, through the sweep, a job that was accepted but whose workflow never started', async () => {
    const id = '0b7a2c1e-5d4f-4e3a-9b8c-7d6e5f4a3b21';
    const listed = async () =>
      (await api.call('GET', '/api/v1/dashboard/client/jobs?page_size=100', { token: acme.triple })).body.jobs.map(
        (j: { job_id: string }) => j.job_id,
      );
    expect(await listed()).not.toContain(id); // the tenant's list index is built before the job appears
    // As if the API had stored and announced the job, then died before starting its workflow.
    await JobModel.collection.insertOne({
      _id: id as never,
      client_id: acme.client_id,
      type: 'maps-scrape',
      status: 'queued',
      params: { ...params, max_results: 3 },
      progress: { done: 0, total: 0 },
      results_count: 0,
      control_seq: 0,
      events_sent: ['job.queued'],
      webhook_url: null,
      created_at: new Date(Date.now() - 60_000),
      updated_at: new Date(Date.now() - 60_000),
    });
    expect(await api.rt.modules.jobs.sweep()).toBe(1);
    expect(await listed()).toContain(id);
    const job = await waitForStatus(api, acme.triple, jobPath(id), ['completed', 'failed']);
    expect(job).toMatchObject({ status: 'completed', results_count: 3 });
    expect(await api.rt.modules.jobs.sweep()).toBe(0);
  });

  it('rejects invalid parameters with 422', async () => {
    const bad = [
      { query: 'x', country_code: 'XX' },
      { query: 'x', country_code: 'NL', region_codes: ['NL-ZZ'] },
      { country_code: 'NL' },
      { query: 'x', country_code: 'nl' },
      { query: 'x', country_code: 'NL', max_locations: 0 },
      { query: 'x', country_code: 'NL', extra: true },
    ];
    for (const body of bad) {
      const res = await api.call('POST', SUBMIT, { token: acme.triple, body });
      expect([res.status, body]).toEqual([422, body]);
      expect(typeof res.body.detail).toBe('string');
    }
    const page = await api.call('GET', '/api/v1/dashboard/client/jobs?page_size=500', { token: acme.triple });
    expect(page.status).toBe(422);
  });
});

describe('locations', () => {
  it('lists countries with location counts and the regions of a country', async () => {
    const countries = await api.call('GET', '/api/v1/dashboard/client/locations/countries', { token: acme.triple });
    expect(countries.status).toBe(200);
    const nl = countries.body.countries.find((c: any) => c.code === 'NL');
    expect(nl).toMatchObject({ name: 'Netherlands', level: 'country', country_code: 'NL' });
    const regions = await api.call('GET', '/api/v1/dashboard/client/locations/regions?country_code=NL', {
      token: acme.triple,
    });
    expect(regions.status).toBe(200);
    const ut = regions.body.regions.find((r: any) => r.code === 'NL-UT');
    expect(ut).toMatchObject({ name: 'Utrecht', level: 'region', country_code: 'NL' });
    expect(regions.body.regions.reduce((n: number, r: any) => n + r.location_count, 0)).toBe(nl.location_count);
    expect(
      (await api.call('GET', '/api/v1/dashboard/client/locations/regions?country_code=XX', { token: acme.triple }))
        .status,
    ).toBe(404);
    expect(
      (await api.call('GET', '/api/v1/dashboard/client/locations/regions?country_code=nl', { token: acme.triple }))
        .status,
    ).toBe(422);
  });
});

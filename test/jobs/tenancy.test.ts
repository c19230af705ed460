import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from './support';

let api: TestApi;
let admin: string;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
let acmeUser: string;
const jobs: Record<string, string> = {};
const LIST = '/api/v1/dashboard/client/jobs';
const small = { query: 'florist', country_code: 'BE', max_locations: 1, max_results: 5 };

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Tenancy');
  globex = await createClient(api, admin, 'Globex Tenancy');
  const user = await api.call('POST', '/api/v1/dashboard/users', {
    token: admin,
    body: {
      email: 'ada@acme-tenancy.test',
      role: 'client_user',
      client_id: acme.client_id,
      password: 'ada-password-123',
    },
  });
  expect(user.status).toBe(201);
  acmeUser = await api.login('ada@acme-tenancy.test', 'ada-password-123');
  for (const [name, token] of [
    ['acme', acme.triple],
    ['globex', globex.triple],
  ] as const) {
    const res = await api.call('POST', SUBMIT, { token, body: small });
    expect(res.status).toBe(200);
    jobs[name] = res.body.job_id;
  }
  await waitForStatus(api, acme.triple, jobPath(jobs.acme), ['completed']);
  await waitForStatus(api, globex.triple, jobPath(jobs.globex), ['completed']);
});
afterAll(() => api.stop());

const ids = (body: any) => body.jobs.map((j: any) => j.job_id);

describe('job tenancy and roles', () => {
  it("shows client callers (triple or dashboard user) only their own client's jobs", async () => {
    for (const token of [acme.triple, acmeUser]) {
      const list = await api.call('GET', LIST, { token });
      expect(list.status).toBe(200);
      expect(ids(list.body)).toEqual([jobs.acme]);
      expect(list.body).toMatchObject({ total: 1, page: 1, page_size: 20 });
      // Another client's job does not exist for them, whatever they try; the header is ignored.
      for (const what of ['status', 'results']) {
        expect((await api.call('GET', jobPath(jobs.globex, what), { token })).status).toBe(404);
      }
      expect((await api.call('POST', jobPath(jobs.globex, 'cancel'), { token })).status).toBe(404);
      const sneaky = await api.call('GET', LIST, { token, headers: { 'X-Selected-Client-Id': globex.client_id } });
      expect(ids(sneaky.body)).toEqual([jobs.acme]);
    }
    expect((await api.call('GET', jobPath(jobs.acme), { token: acmeUser })).body.client_id).toBe(acme.client_id);
  });

  it("shows a super_admin every client's jobs, or one client's with X-Selected-Client-Id", async () => {
    const all = await api.call('GET', LIST, { token: admin });
    expect(new Set(ids(all.body))).toEqual(new Set([jobs.acme, jobs.globex]));
    const one = await api.call('GET', LIST, { token: admin, headers: { 'X-Selected-Client-Id': globex.client_id } });
    expect(ids(one.body)).toEqual([jobs.globex]);
    expect((await api.call('GET', jobPath(jobs.acme), { token: admin })).status).toBe(200);
    expect((await api.call('GET', jobPath(jobs.acme, 'results'), { token: admin })).status).toBe(200);
    const other = await api.call('GET', jobPath(jobs.acme), {
      token: admin,
      headers: { 'X-Selected-Client-Id': globex.client_id },
    });
    expect(other.status).toBe(404);
  });

  it('lets a super_admin submit only for a chosen, existing client', async () => {
    const none = await api.call('POST', SUBMIT, { token: admin, body: small });
    expect(none.status).toBe(422);
    const unknown = await api.call('POST', SUBMIT, {
      token: admin,
      body: small,
      headers: { 'X-Selected-Client-Id': '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(422);
    const ok = await api.call('POST', SUBMIT, {
      token: admin,
      body: small,
      headers: { 'X-Selected-Client-Id': globex.client_id },
    });
    expect(ok.status).toBe(200);
    const job = await waitForStatus(api, globex.triple, jobPath(ok.body.job_id), ['completed']);
    expect(job.client_id).toBe(globex.client_id);
  });

  it('filters by status and type and pages the list', async () => {
    const research = await api.call('POST', '/api/v1/dashboard/client/research/submit', {
      token: acme.triple,
      body: { companies: [{ name: 'Listed Apart', domain: 'listed-apart.example' }] },
    });
    expect(research.status).toBe(200);
    const done = await api.call('GET', `${LIST}?status_filter=completed&type_filter=maps-scrape`, {
      token: acme.triple,
    });
    expect(ids(done.body)).toEqual([jobs.acme]);
    const mapsJobs = await api.call('GET', `${LIST}?type_filter=maps-scrape`, { token: acme.triple });
    expect(ids(mapsJobs.body)).toEqual([jobs.acme]); // the research job is listed under /research only
    const otherType = await api.call('GET', `${LIST}?type_filter=research`, { token: acme.triple });
    expect([otherType.status, otherType.body.errors?.[0]?.field]).toEqual([422, 'type_filter']);
    const queued = await api.call('GET', `${LIST}?status_filter=queued`, { token: acme.triple });
    expect(queued.body).toMatchObject({ jobs: [], total: 0 });
    const bad = await api.call('GET', `${LIST}?status_filter=paused`, { token: acme.triple });
    expect(bad.status).toBe(422);
    const paged = await api.call('GET', `${LIST}?page=2&page_size=1`, { token: admin });
    expect(paged.body).toMatchObject({ page: 2, page_size: 1 });
    expect(paged.body.jobs).toHaveLength(1);
    expect(paged.body.total).toBeGreaterThanOrEqual(3);
  });

  it('answers 401 without valid credentials', async () => {
    expect((await api.call('GET', LIST)).status).toBe(401);
    expect((await api.call('GET', LIST, { token: `${acme.client_id}:nope:nope` })).status).toBe(401);
    expect((await api.call('POST', SUBMIT, { body: small })).status).toBe(401);
  });
});

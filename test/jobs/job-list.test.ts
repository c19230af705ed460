import { registry } from '../../src/lib/metrics';
import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from './support';

/**
 * The job list reads which jobs a page holds from the records only when a job was stored since
 * (src/jobs/job-list-members.ts), and the jobs themselves fresh each time: these tests hold both halves.
 */
let api: TestApi;
let admin: string;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
const LIST = '/api/v1/dashboard/client/jobs';
const small = { query: 'bakery', country_code: 'BE', max_locations: 1, max_results: 3 };

/** How many job-list reads found their page's members cached (hit) or read them from the records (miss). */
async function lookups() {
  const values = (await registry.getSingleMetric('lead_cache_lookups_total')!.get()).values;
  const of = (result: string) =>
    values.find((v) => v.labels.cache === 'job_list' && v.labels.result === result)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss') };
}

const list = async (token: string, query = '?page_size=5') => {
  const res = await api.call('GET', `${LIST}${query}`, { token });
  expect(res.status).toBe(200);
  return res.body as { jobs: { job_id: string; status: string; client_id: string }[]; total: number };
};

const submit = async (token: string) => {
  const res = await api.call('POST', SUBMIT, { token, body: small });
  expect(res.status).toBe(200);
  return res.body.job_id as string;
};

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Listing');
  globex = await createClient(api, admin, 'Globex Listing');
});
afterAll(() => api.stop());

describe('the job list', () => {
  it('holds every job whose submit was answered before the read, while other reads keep its page cached', async () => {
    // Readers polling the page all along keep its members cached under each version, as dashboards do.
    let polling = true;
    const pollers = Array.from({ length: 3 }, async () => {
      while (polling) await list(acme.triple);
    });
    const submitted: string[] = [];
    try {
      for (let n = 0; n < 8; n++) {
        submitted.unshift(await submit(acme.triple));
        const page = await list(acme.triple);
        expect(page.jobs.map((j) => j.job_id)).toEqual(submitted.slice(0, 5));
        expect(page.total).toBe(submitted.length);
        // The all-clients list of a super_admin moves with every tenant's jobs.
        const all = await list(admin, '?page_size=1');
        expect(all.jobs[0].job_id).toBe(submitted[0]);
      }
      const other = await submit(globex.triple);
      expect((await list(admin, '?page_size=1')).jobs[0].job_id).toBe(other);
      expect((await list(acme.triple)).total).toBe(submitted.length); // another tenant's job is not acme's
      expect((await list(globex.triple)).jobs.map((j) => j.job_id)).toEqual([other]);
      // The second page is its own entry, and moves too.
      expect((await list(acme.triple, '?page_size=5&page=2')).jobs.map((j) => j.job_id)).toEqual(
        submitted.slice(5, 10),
      );
    } finally {
      polling = false;
      await Promise.all(pollers);
    }
    expect((await lookups()).hit).toBeGreaterThan(0);
  });

  it('reads the members once per stored job, and shows each job as it is now', async () => {
    const job = await submit(acme.triple);
    const before = await lookups();
    const first = await list(acme.triple);
    expect(first.jobs[0].job_id).toBe(job);
    await waitForStatus(api, acme.triple, jobPath(job), ['completed']);
    // No job stored since: the members come from the cache, the job's state from its record.
    for (let n = 0; n < 5; n++)
      expect((await list(acme.triple)).jobs[0]).toMatchObject({ job_id: job, status: 'completed' });
    const after = await lookups();
    expect(after.miss - before.miss).toBe(1);
    expect(after.hit - before.hit).toBe(5);
    // A status filter's members change with every state change: it is read from the records every time.
    const completed = await list(acme.triple, '?page_size=5&status_filter=completed');
    expect(completed.jobs.map((j) => j.job_id)).toContain(job);
    expect(await lookups()).toEqual(after);
  });
});

import mongoose from 'mongoose';
import { createJobListIndex } from '../../src/jobs/job-list-index';
import { createLogger } from '../../src/lib/logger';
import { registry } from '../../src/lib/metrics';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, jobPath, stepStore, waitForStatus } from './support';

/**
 * A tenant's job list answers its order and count from an index in Redis (src/jobs/job-list-index.ts), built from
 * the records once and kept by every submit, and the page's jobs from their records, fresh: these tests hold both.
 */
let api: TestApi;
let admin: string;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
const LIST = '/api/v1/dashboard/client/jobs';
const small = { query: 'bakery', country_code: 'BE', max_locations: 1, max_results: 3 };

/** How many job-list reads found the index complete (hit) or rebuilt it from the records first (miss). */
async function lookups() {
  const values = (await registry.getSingleMetric('lead_cache_lookups_total')!.get()).values;
  const of = (result: string) =>
    values.find((v) => v.labels.cache === 'job_list' && v.labels.result === result)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss') };
}

/** Which jobs a page holds, in order, and the list's total: what the index answers (the jobs' states are read fresh). */
const members = (page: { jobs: { job_id: string }[]; total: number }) => ({
  ids: page.jobs.map((j) => j.job_id),
  total: page.total,
});

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

  it('rebuilds a lost index from the records once, then shows each job as it is now', async () => {
    const job = await submit(acme.triple);
    const expected = await list(acme.triple);
    expect(expected.jobs[0].job_id).toBe(job);
    // As if Redis lost the index (restarted, evicted): the next read rebuilds it from the records, once.
    await api.rt.engines.redis.del(`jobs:list:{${acme.client_id}}:maps-scrape`);
    const before = await lookups();
    expect(await list(acme.triple)).toMatchObject({
      total: expected.total,
      jobs: expected.jobs.map((j) => ({ job_id: j.job_id })),
    });
    await waitForStatus(api, acme.triple, jobPath(job), ['completed']);
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

  it('rebuilds a set marked complete by another run of Redis, which may have come back without its last writes', async () => {
    const key = `jobs:list:{${globex.client_id}}:maps-scrape`;
    const job = await submit(globex.triple);
    const expected = await list(globex.triple);
    // What a Redis restarted from its append-only file could hold: the mark of its previous run, not the last add.
    const redis = api.rt.engines.redis;
    const [mark] = await redis.zrangebyscore(key, '-inf', '-inf');
    expect(mark).toMatch(/^~complete:\w+$/);
    await redis.multi().zrem(key, job, mark).zadd(key, '-inf', '~complete:0000previousrun').exec();
    expect(members(await list(globex.triple))).toEqual(members(expected)); // (its jobs may have moved on meanwhile)
    expect(await redis.zrangebyscore(key, '-inf', '-inf')).toEqual([mark]);
  });

  it('reads a page under a version of this run of Redis: one restarted without its last changes counts anew', async () => {
    // A server restored from its append-only file may lack the last second of version raises, and the next writes
    // would then count the same numbers for other records; a version that names the run never matches across it.
    const index = createJobListIndex(api.rt.engines.redis, createLogger('silent'));
    const run = /run_id:(\w+)/.exec(await api.rt.engines.redis.info('server'))?.[1];
    const page = await index.page(globex.client_id, 'maps-scrape', 0, 5, async () => []);
    expect(run).toMatch(/^\w{40}$/);
    expect(page?.version.split(':')[0]).toBe(run);
  });

  it('answers a page whose jobs did not change from what it read, and reads them again after any change', async () => {
    const initech = await createClient(api, admin, 'Initech Listing');
    // The sandbox answers this query slowly, so each job stays processing for a few seconds.
    const slow = { query: 'tailor sbx-slow-400', country_code: 'NL', region_codes: ['NL-ZE'], max_locations: 3 };
    const statusOf = async (id: string) => (await list(initech.triple)).jobs.find((j) => j.job_id === id)?.status;
    const until = (id: string, status: string) =>
      eventually(async () => ((await statusOf(id)) === status ? status : undefined), 30_000, 50, `${id} ${status}`);

    // The job's own writes (its run's start, progress and end, through the job store) show on the page at once.
    const ran = (await api.call('POST', SUBMIT, { token: initech.triple, body: slow })).body.job_id;
    await until(ran, 'processing'); // the page as read now is kept, under the records' version
    await waitForStatus(api, initech.triple, jobPath(ran), ['completed']);
    expect(await statusOf(ran)).toBe('completed');

    // The API's changes too: the page read while the job ran shows it cancelled as soon as the cancel is answered.
    const cancelled = (await api.call('POST', SUBMIT, { token: initech.triple, body: slow })).body.job_id;
    await until(cancelled, 'processing');
    expect((await api.call('POST', jobPath(cancelled, 'cancel'), { token: initech.triple })).status).toBe(200);
    expect(await statusOf(cancelled)).toBe('cancelled');

    // Once nothing changes, reads of the page do not read the records: no find by id in the jobs collection.
    await waitForStatus(api, initech.triple, jobPath(cancelled), ['cancelled']);
    await api.rt.engines.temporal.workflow
      .getHandle(cancelled)
      .result()
      .catch(() => undefined); // its run's last write (the final event's bookkeeping) is done
    await list(initech.triple);
    const reads: unknown[] = [];
    mongoose.set('debug', (collection: string, method: string, filter: { _id?: { $in?: unknown } }) => {
      if (collection === 'jobs' && method === 'find' && filter?._id?.$in) reads.push(filter);
    });
    try {
      for (let n = 0; n < 3; n++)
        expect((await list(initech.triple)).jobs.map((j) => j.status)).toEqual(['cancelled', 'completed']);
      // Nor after a step of the cancelled job that arrives late (its activity ends after its run): it writes nothing.
      const late = await stepStore(api).recordWhileActive(cancelled, initech.client_id, ['processing'], async () => {
        throw new Error('a step of a job no longer processing is not run');
      });
      expect(late).toBe(false);
      expect((await list(initech.triple)).jobs.map((j) => j.status)).toEqual(['cancelled', 'completed']);
    } finally {
      mongoose.set('debug', false);
    }
    expect(reads).toEqual([]);
  });

  it('drops an id whose record is not there (an undone submit) from the page, its count and the index', async () => {
    const key = `jobs:list:{${globex.client_id}}:maps-scrape`;
    const expected = await list(globex.triple);
    await api.rt.engines.redis.zadd(key, Date.now() + 60_000, 'ffffffff-0000-4000-8000-000000000000');
    expect(members(await list(globex.triple))).toEqual(members(expected)); // (its jobs may have moved on meanwhile)
    expect(await api.rt.engines.redis.zscore(key, 'ffffffff-0000-4000-8000-000000000000')).toBeNull();
  });
});

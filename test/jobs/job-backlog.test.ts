import { randomUUID } from 'node:crypto';
import { registry } from '../../src/lib/metrics';
import { REFRESH_AFTER_MS } from '../../src/jobs/job-backlog';
import { JobModel } from '../../src/jobs/job.model';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { SUBMIT, jobPath } from './support';

/**
 * The bound on work accepted but not done (src/jobs/job-backlog.ts, docs/performance.md "Load"): while the
 * deployment's unfinished jobs reach JOB_MAX_UNFINISHED, a submit is answered 503 with Retry-After and nothing is
 * recorded. No worker runs here, so every accepted job stays queued until the test cancels it: the count only moves
 * when the test moves it.
 */
let api: TestApi;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
const small = { query: 'bakery', country_code: 'BE', max_locations: 1, max_results: 3 };
const RESEARCH_SUBMIT = '/api/v1/dashboard/client/research/submit';

const submit = (token: string, key?: string) =>
  api.call('POST', SUBMIT, { token, body: small, headers: key ? { 'idempotency-key': key } : {} });

async function shedByBacklog() {
  const values = (await registry.getSingleMetric('lead_http_requests_shed_total')!.get()).values;
  return values.find((v) => v.labels.reason === 'job_backlog')?.value ?? 0;
}

beforeAll(async () => {
  // The subject is the deployment's capacity guard alone: each client's own bound stays below it, and the fair share
  // of its last part (test/jobs/job-fairness.test.ts) is off.
  api = await startTestApi({
    RUN_WORKER: 'false',
    JOB_MAX_UNFINISHED: '3',
    JOB_CLIENT_MAX_UNFINISHED: '2',
    JOB_FAIR_SHARE_RESERVE_PERCENT: '0',
    JOB_BACKLOG_RETRY_AFTER_SECONDS: '7',
  });
  const admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Backlog');
  globex = await createClient(api, admin, 'Globex Backlog');
});
afterAll(() => api.stop());

it('refuses a submit with 503 and Retry-After while the unfinished jobs reach the bound, and records nothing', async () => {
  const key = `"${randomUUID()}"`;
  const accepted = [await submit(acme.triple, key), await submit(acme.triple), await submit(globex.triple)];
  expect(accepted.map((r) => r.status)).toEqual([200, 200, 200]);
  const shedBefore = await shedByBacklog();

  // The bound is the deployment's: every tenant and every kind of job is refused past it.
  const refused = [
    await submit(acme.triple),
    await submit(globex.triple),
    await api.call('POST', RESEARCH_SUBMIT, { token: acme.triple, body: { companies: [{ name: 'Backlog BV' }] } }),
  ];
  for (const res of refused) {
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '7']);
    expect(res.body.detail).toBe('Service busy (3 jobs are waiting or running); retry later');
  }
  expect(await shedByBacklog()).toBe(shedBefore + 3);
  expect(await JobModel.countDocuments({ client_id: { $in: [acme.client_id, globex.client_id] } })).toBe(3);
  const listed = await api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple });
  expect(listed.body.total).toBe(2);

  // A keyed retry whose first answer was lost (its kept answer gone, as after a crash) is not new work: it converges
  // on the job its first attempt stored instead of being refused.
  const redis = api.rt.engines.redis;
  const prefix = redis.options.keyPrefix ?? '';
  for (const name of await redis.keys(`${prefix}idempotency:*`)) await redis.del(name.slice(prefix.length));
  const retried = await submit(acme.triple, key);
  expect([retried.status, retried.body.job_id]).toEqual([200, accepted[0].body.job_id]);
  expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(2);

  // A job that ends makes room: the next count (read in the background at most every 2 s while submits come) admits
  // one submit, and only one.
  const cancelled = await api.call('POST', jobPath(accepted[1].body.job_id, 'cancel'), { token: acme.triple });
  expect(cancelled.status).toBe(200);
  const admitted = await eventually(async () => {
    const res = await submit(globex.triple);
    return res.status === 200 ? res : undefined;
  });
  expect(admitted.body.status).toBe('queued');
  expect((await submit(acme.triple)).status).toBe(503);
  // The last count: 2 (the one that made room), or 3 if a later read already saw the admitted job.
  const gauge = (await registry.getSingleMetric('lead_jobs_unfinished')!.get()).values[0].value;
  expect([2, 3]).toContain(gauge);

  // After a quiet spell the last count is from before a job ended (counts are read while submits come): the first
  // submit after it is not refused on that count, but on one read now. Time is the subject here: the wait only has to
  // outlast the count's refresh interval, and a longer one (a loaded machine) tests the same.
  expect((await submit(acme.triple)).status).toBe(503); // its count, read now or just before, sees 3 unfinished
  const ended = await api.call('POST', jobPath(admitted.body.job_id, 'cancel'), { token: globex.triple });
  expect(ended.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, REFRESH_AFTER_MS + 500));
  const afterQuiet = await submit(acme.triple);
  expect(afterQuiet.status).toBe(200);
});

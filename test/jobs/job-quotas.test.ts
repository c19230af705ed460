import { randomUUID } from 'node:crypto';
import { JobModel } from '../../src/jobs/job.model';
import { ADMIN, createClient, startTestApi, type CallResult, type TestApi } from '../support/harness';
import { startSecondApi } from '../support/second-api';
import { fakeClock } from '../support/fake-clock';
import { SUBMIT, jobPath, shownQuotas, windowEnds, expectQuotaRefusal } from './support';

/**
 * Each client's own bounds on jobs (docs/security.md, "Jobs per tenant"): unfinished at once, per UTC day and month,
 * caps on max_locations and max_results, and a brand's for the jobs agents submit for it; through the HTTP API, with
 * no worker running, so an accepted job stays unfinished until the test ends it.
 */
let api: TestApi;
// The API's clock stands at noon (UTC) of the real day: every test's submits fall in one day's and month's window.
const clock = fakeClock(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 12 * 3_600_000);
let admin: string;
const small = { query: 'bakery', country_code: 'BE', max_locations: 1, max_results: 3 };
const RESEARCH_SUBMIT = '/api/v1/dashboard/client/research/submit';
const USAGE = '/api/v1/dashboard/client/usage';
const clientPath = (id: string) => `/api/v1/dashboard/admin/clients/${id}`;

const submit = (token: string, body: object = small, headers: Record<string, string> = {}) =>
  api.call('POST', SUBMIT, { token, body, headers });

/** Sets the client's own job limits as a super_admin does. */
async function setLimits(clientId: string, jobLimits: Record<string, number | null>) {
  const res = await api.call('PATCH', clientPath(clientId), { token: admin, body: { job_limits: jobLimits } });
  expect(res.status).toBe(200);
  return res;
}

/** The refusal a bound gives: 429, its code, Retry-After, and the detail. */
beforeAll(async () => {
  api = await startTestApi({ RUN_WORKER: 'false', JOB_CLIENT_MAX_UNFINISHED: '2' }, { clock });
  admin = await api.login(ADMIN.email, ADMIN.password);
});
afterAll(() => api.stop());

it("one client at its unfinished bound is refused with 429; another client's submit is not", async () => {
  const acme = await createClient(api, admin, 'Acme Bound');
  const globex = await createClient(api, admin, 'Globex Bound');
  const key = `"${randomUUID()}"`;
  const first = await submit(acme.triple, small, { 'idempotency-key': key });
  const second = await submit(acme.triple);
  expect([first.status, second.status]).toEqual([200, 200]);
  const ends = windowEnds(clock.date());
  // Every answer within the bounds says what is left of each (the client's defaults: 2 at once, 1000 a day,
  // 20000 a month).
  const shown = [shownQuotas(first), shownQuotas(second)];
  expect(Object.keys(shown[0])).toEqual(['jobs-unfinished', 'jobs-day', 'jobs-month']);
  expect(shown.map((s) => s['jobs-unfinished'])).toEqual([
    { q: 2, r: 1 },
    { q: 2, r: 0 },
  ]);
  expect(shown.map((s) => [s['jobs-day'].q, s['jobs-day'].w, s['jobs-day'].r])).toEqual([
    [1000, 86_400, 999],
    [1000, 86_400, 998],
  ]);
  expect(shown[1]['jobs-month']).toMatchObject({ q: 20_000, w: ends.monthSeconds, r: 19_998 });
  expect(shown[1]['jobs-day'].t).toBe(ends.day);

  // Past it, every kind of job of that client is refused, and nothing is recorded or counted.
  const refused = [
    await submit(acme.triple),
    await api.call('POST', RESEARCH_SUBMIT, { token: acme.triple, body: { companies: [{ name: 'Bound BV' }] } }),
  ];
  for (const res of refused) {
    expect(expectQuotaRefusal(res, 'job_unfinished_limit')).toBe(5); // JOB_BACKLOG_RETRY_AFTER_SECONDS
    expect(res.body.detail).toBe('This client has 2 unfinished jobs, its bound (2 at once); retry when one has ended');
    const quotas = shownQuotas(res);
    expect(quotas['jobs-unfinished']).toEqual({ q: 2, r: 0 });
    expect(quotas['jobs-day'].r).toBe(998); // a refused submit is not counted
  }
  expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(2);

  // The bound is the client's: another client submits as before.
  const other = await submit(globex.triple);
  expect(other.status).toBe(200);
  expect(shownQuotas(other)['jobs-unfinished']).toEqual({ q: 2, r: 1 });

  // A keyed retry of a job already stored is not new work: answered that job, never refused, not counted again.
  const redis = api.rt.engines.redis;
  const prefix = redis.options.keyPrefix ?? '';
  for (const name of await redis.keys(`${prefix}idempotency:*`)) await redis.del(name.slice(prefix.length));
  const retried = await submit(acme.triple, small, { 'idempotency-key': key });
  expect([retried.status, retried.body.job_id]).toEqual([200, first.body.job_id]);

  // A job that ends frees its slot at once.
  expect((await api.call('POST', jobPath(second.body.job_id, 'cancel'), { token: acme.triple })).status).toBe(200);
  const next = await submit(acme.triple);
  expect(next.status).toBe(200);
  expect(shownQuotas(next)['jobs-unfinished']).toEqual({ q: 2, r: 0 });
  expect(shownQuotas(next)['jobs-day'].r).toBe(997);
});

it('day and month quotas: 429 with the code, Retry-After until the window ends, and the draft RateLimit fields', async () => {
  const acme = await createClient(api, admin, 'Acme Quota');
  await setLimits(acme.client_id, { max_unfinished: 0, per_day: 2 });
  expect((await submit(acme.triple)).status).toBe(200);
  const last = await submit(acme.triple);
  expect(last.status).toBe(200);
  // No bound on the unfinished jobs of this client: no policy for them.
  expect(Object.keys(shownQuotas(last))).toEqual(['jobs-day', 'jobs-month']);
  expect(shownQuotas(last)['jobs-day']).toMatchObject({ q: 2, w: 86_400, r: 0 });

  const byDay = await submit(acme.triple);
  const dayWait = expectQuotaRefusal(byDay, 'job_daily_quota');
  expect(dayWait).toBe(windowEnds(clock.date()).day); // until UTC midnight
  const dayShown = shownQuotas(byDay)['jobs-day'];
  expect(dayShown).toMatchObject({ q: 2, r: 0 });
  expect(dayWait).toBeGreaterThanOrEqual(dayShown.t!); // the draft: Retry-After not before the policy's reset
  expect(byDay.body.detail).toMatch(/^This client has used its 2 jobs of this UTC day; more are accepted in \d+ s$/);

  // The month counts the same jobs: one more is accepted under a month's quota of 3, then the month is spent.
  await setLimits(acme.client_id, { per_day: 0, per_month: 3 });
  const third = await submit(acme.triple);
  expect(third.status).toBe(200);
  expect(shownQuotas(third)['jobs-month']).toMatchObject({ q: 3, r: 0, w: windowEnds(clock.date()).monthSeconds });
  const byMonth = await submit(acme.triple);
  const monthWait = expectQuotaRefusal(byMonth, 'job_monthly_quota');
  expect(monthWait).toBe(windowEnds(clock.date()).month); // until the next UTC month
  expect(shownQuotas(byMonth)['jobs-month']).toMatchObject({ q: 3, r: 0 });
  expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(3);
});

it("a super_admin sets a client's job limits; the usage operation shows them and their use", async () => {
  const acme = await createClient(api, admin, 'Acme Usage');
  const globex = await createClient(api, admin, 'Globex Usage');
  // Only a super_admin sets them.
  const byClient = await api.call('PATCH', clientPath(acme.client_id), {
    token: acme.triple,
    body: { job_limits: { per_day: 1_000_000 } },
  });
  expect(byClient.status).toBe(403);
  const set = await setLimits(acme.client_id, { per_day: 50, max_results: 200 });
  expect(set.body.job_limits).toEqual({
    max_unfinished: null,
    per_day: 50,
    per_month: null,
    max_locations: null,
    max_results: 200,
  });
  expect((await submit(acme.triple)).status).toBe(200);

  const usage = await api.call('GET', USAGE, { token: acme.triple });
  expect(usage.status).toBe(200);
  const ends = windowEnds(clock.date());
  expect(usage.body).toMatchObject({
    client_id: acme.client_id,
    jobs: {
      unfinished: { limit: 2, used: 1, source: 'default' },
      per_day: { limit: 50, used: 1, source: 'client' },
      per_month: { limit: 20_000, used: 1, source: 'default' },
      max_locations: { limit: 0, source: 'default' },
      max_results: { limit: 200, source: 'client' },
    },
    brands: [],
  });
  expect(Date.parse(usage.body.jobs.per_day.resets_at) - clock.now()).toBe(ends.day * 1000);
  expect(new Date(usage.body.jobs.per_month.resets_at).getUTCDate()).toBe(1);

  // A super_admin reads a client's with X-Selected-Client-Id (and must name one); null puts a default back.
  const selected = { 'x-selected-client-id': acme.client_id };
  expect((await api.call('GET', USAGE, { token: admin, headers: selected })).body).toEqual(usage.body);
  expect((await api.call('GET', USAGE, { token: admin })).status).toBe(422);
  await setLimits(acme.client_id, { per_day: null });
  const reset = await api.call('GET', USAGE, { token: admin, headers: selected });
  expect(reset.body.jobs.per_day).toMatchObject({ limit: 1000, used: 1, source: 'default' });
  // Another client sees its own, never acme's.
  const theirs = await api.call('GET', USAGE, { token: globex.triple, headers: selected });
  expect(theirs.body).toMatchObject({ client_id: globex.client_id, jobs: { unfinished: { used: 0 } } });
});

it("caps a job's max_locations and max_results: over a cap is 422 naming it, left out is set to it", async () => {
  const acme = await createClient(api, admin, 'Acme Caps');
  await setLimits(acme.client_id, { max_locations: 2, max_results: 5, max_unfinished: 0 });
  const over = await submit(acme.triple, { query: 'bakery', country_code: 'NL', max_locations: 3 });
  expect([over.status, over.body.code]).toEqual([422, 'job_cap_exceeded']);
  expect(over.body.errors).toEqual([
    { location: 'body', field: 'max_locations', message: "at most 2 (this client's job_limits.max_locations)" },
  ]);
  const tooMany = await submit(acme.triple, { query: 'bakery', country_code: 'NL', max_results: 6 });
  expect([tooMany.status, tooMany.body.code, tooMany.body.errors[0].field]).toEqual([
    422,
    'job_cap_exceeded',
    'max_results',
  ]);
  const within = await submit(acme.triple, { query: 'bakery', country_code: 'NL', max_locations: 1 });
  expect(within.body).toMatchObject({ max_locations: 1, max_results: 5 });
  const capped = await submit(acme.triple, { query: 'bakery', country_code: 'NL' });
  expect(capped.body).toMatchObject({ status: 'queued', max_locations: 2, max_results: 5 });
  const job = await api.call('GET', jobPath(capped.body.job_id), { token: acme.triple });
  expect(job.body).toMatchObject({ max_locations: 2, max_results: 5 });
  // A watch's given values are checked when it is made.
  const watch = await api.call('POST', '/api/v1/dashboard/client/watches', {
    token: acme.triple,
    body: {
      name: 'Too wide',
      maps_scrape: { query: 'bakery', country_code: 'NL', max_locations: 9 },
      cadence: { interval_seconds: 86_400 },
    },
  });
  expect([watch.status, watch.body.code, watch.body.errors[0].field]).toEqual([
    422,
    'job_cap_exceeded',
    'maps_scrape.max_locations',
  ]);
  expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(2);
});

it('a removal lost to a crash does not keep a client at its bound: the count is reconciled from the job records', async () => {
  const acme = await createClient(api, admin, 'Acme Reconciled');
  await setLimits(acme.client_id, { max_unfinished: 1 });
  const first = await submit(acme.triple);
  expect(first.status).toBe(200);
  // As if its worker had ended the job a while ago and died before taking it out of the client's count: its record
  // says failed, the count still holds it (counted minutes ago, so no submit can still be storing it).
  await JobModel.updateOne({ _id: first.body.job_id, client_id: acme.client_id }, { $set: { status: 'failed' } });
  const redis = api.rt.engines.redis;
  await redis.zadd(`jobs:unfinished:client:${acme.client_id}`, 'XX', Date.now() - 10 * 60_000, first.body.job_id);
  const after = await submit(acme.triple);
  expect(after.status).toBe(200);
  expect(shownQuotas(after)['jobs-unfinished']).toEqual({ q: 1, r: 0 });
});

it('two API processes share the counts: 8 submits at once under a bound of 3 accept exactly 3', async () => {
  const acme = await createClient(api, admin, 'Acme Shared');
  await setLimits(acme.client_id, { max_unfinished: 3 });
  const second = await startSecondApi(api, { clockAt: clock.now() });
  try {
    const there = async (): Promise<CallResult> => {
      const res = await fetch(`${second.url}${SUBMIT}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acme.triple}`, 'content-type': 'application/json' },
        body: JSON.stringify(small),
      });
      return { status: res.status, body: await res.json(), headers: res.headers };
    };
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? there() : submit(acme.triple))));
    const accepted = answers.filter((a) => a.status === 200);
    expect([accepted.length, answers.filter((a) => a.status === 429).length]).toEqual([3, 5]);
    expect(accepted.map((a) => shownQuotas(a)['jobs-unfinished'].r).sort()).toEqual([0, 1, 2]);
    expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(3);
  } finally {
    second.stop();
  }
});

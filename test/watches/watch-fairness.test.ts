import { JobModel } from '../../src/jobs/job.model';
import { SUBMIT, jobPath } from '../jobs/support';
import { createClient, eventually, useTestApi } from '../support/harness';
import { SMALL_MAPS, WATCHES, watchPath } from './watch-helpers';

/**
 * A watch's runs are its client's jobs like any (docs/watches.md, "Runs and the client's bounds"), and running one
 * now is spaced like its schedule is.
 */
const made: { id: string; token: string }[] = [];
afterAll(async () => {
  // No schedule outlives the test on the shared Temporal (declared first: it runs before the API stops).
  for (const { id, token } of made) await ctx.api.call('DELETE', watchPath(id), { token });
});
const ctx = useTestApi();

async function dailyWatch(token: string, name: string) {
  const res = await ctx.api.call('POST', WATCHES, {
    token,
    body: { name, maps_scrape: SMALL_MAPS, cadence: { interval_seconds: 86_400 } },
  });
  expect(res.status).toBe(201);
  made.push({ id: res.body.watch_id, token });
  return res.body.watch_id as string;
}

/** The watch's one run once it has ended (or been skipped). */
const onlyRun = (token: string, watchId: string) =>
  eventually(async () => {
    const runs = (await ctx.api.call('GET', watchPath(watchId, 'runs'), { token })).body.runs;
    return runs?.length === 1 && runs[0].status !== 'running' ? runs[0] : undefined;
  }, 60_000);

it('triggering a watch again within the minimum interval of its last trigger is 429 with Retry-After', async () => {
  const acme = await createClient(ctx.api, ctx.admin, 'Acme Trigger');
  const id = await dailyWatch(acme.triple, 'Bakeries');
  const first = await ctx.api.call('POST', watchPath(id, 'trigger'), { token: acme.triple });
  expect(first.status).toBe(202);
  const again = await ctx.api.call('POST', watchPath(id, 'trigger'), { token: acme.triple });
  expect([again.status, again.body.code]).toEqual([429, 'watch_trigger_too_soon']);
  // WATCH_TRIGGER_MIN_INTERVAL_SECONDS is unset: WATCH_MIN_INTERVAL_SECONDS (3600) applies, counted from the trigger.
  const retryAfter = Number(again.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(3500);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(again.body.detail).toMatch(/less than 3600 s ago/);
  const run = await onlyRun(acme.triple, id); // the refused trigger asked for no second run
  expect(run.status).toBe('completed');
});

it("a watch's run counts against its client's bounds: one they refuse is skipped and listed with why", async () => {
  const acme = await createClient(ctx.api, ctx.admin, 'Acme Counted');
  const limits = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${acme.client_id}`, {
    token: ctx.admin,
    body: { job_limits: { max_unfinished: 1 } },
  });
  expect(limits.status).toBe(200);
  const [held, counted] = [await dailyWatch(acme.triple, 'Held'), await dailyWatch(acme.triple, 'Counted')];
  // The client's one unfinished job, slow enough to hold its bound while the watch runs.
  const slow = await ctx.api.call('POST', SUBMIT, {
    token: acme.triple,
    body: { query: 'bakery sbx-slow-60000', country_code: 'LU', max_locations: 1 },
  });
  expect(slow.status).toBe(200);
  expect((await ctx.api.call('POST', watchPath(held, 'trigger'), { token: acme.triple })).status).toBe(202);
  const skipped = await onlyRun(acme.triple, held);
  expect(skipped).toMatchObject({
    status: 'skipped',
    job_id: null,
    skip_code: 'job_unfinished_limit',
    skip_reason: 'This client has 1 unfinished jobs, its bound (1 at once); retry when one has ended',
    results_count: 0,
  });
  expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(1); // the run made no job
  const last = await ctx.api.call('GET', watchPath(held), { token: acme.triple });
  expect(last.body.last_run).toMatchObject({ run_id: skipped.run_id, status: 'skipped' });

  // Once the bound has room the next run is a job, counted like a submit.
  expect((await ctx.api.call('POST', jobPath(slow.body.job_id, 'cancel'), { token: acme.triple })).status).toBe(200);
  expect((await ctx.api.call('POST', watchPath(counted, 'trigger'), { token: acme.triple })).status).toBe(202);
  expect(await onlyRun(acme.triple, counted)).toMatchObject({ status: 'completed', job_id: expect.any(String) });
  const usage = await ctx.api.call('GET', '/api/v1/dashboard/client/usage', { token: acme.triple });
  expect(usage.body.jobs.per_day.used).toBe(2); // the submit and the run; the skipped run is not counted
});

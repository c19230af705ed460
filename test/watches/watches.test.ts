import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScheduleNotFoundError } from '@temporalio/client';
import { JobModel } from '../../src/jobs/job.model';
import { WatchModel } from '../../src/watches/watch.model';
import { openStream, type SseStream } from '../events/sse-client';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { verifyDelivery } from '../support/standard-webhooks';
import { jobWorkflowId } from '../../workflows/jobs-signals';
import { watchRunWorkflow } from '../../workflows/watches';
import { watchRunWorkflowId, watchScheduleId } from '../../workflows/watches-api';
import { SMALL_MAPS, WATCHES, businessRefs, endedRuns, watchPath } from './watch-helpers';

let api: TestApi;
let admin: string;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
let stream: SseStream;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: { headers: http.IncomingHttpHeaders; raw: string; body: any }[] = [];
/** Watches made here, deleted at the end so that no schedule outlives the test on the shared Temporal. */
const made: { id: string; token: string }[] = [];

const sandbox = () => api.rt.worker!.providers.sandbox!;
const schedule = (watchId: string) => api.rt.engines.temporal.schedule.getHandle(watchScheduleId(watchId));

async function createWatch(token: string, body: Record<string, unknown>) {
  const res = await api.call('POST', WATCHES, { token, body });
  if (res.status === 201) made.push({ id: res.body.watch_id, token });
  return res;
}

/** A new client and its one daily watch of SMALL_MAPS. */
async function dailyWatchOfNewClient(clientName: string, watchName: string) {
  const client = await createClient(api, admin, clientName);
  const res = await createWatch(client.triple, {
    name: watchName,
    maps_scrape: SMALL_MAPS,
    cadence: { interval_seconds: 86_400 },
  });
  expect(res.status).toBe(201);
  return { client, id: res.body.watch_id as string };
}

beforeAll(async () => {
  // These tests run one watch several times in a row: the spacing of triggers has its own test
  // (test/watches/watch-fairness.test.ts).
  api = await startTestApi({ ...FAST_RETRIES, WATCHES_MAX_PER_CLIENT: '3', WATCH_TRIGGER_MIN_INTERVAL_SECONDS: '0' });
  admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Watches');
  globex = await createClient(api, admin, 'Globex Watches');
  stream = await openStream(`${api.url}/api/v1/events/stream`, { authorization: `Bearer ${acme.triple}` });
  receiver = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw) });
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/watch`;
  // Schedules carry the client's search attributes once the namespace has them (the service registers them).
  await eventually(async () => api.rt.engines.searchAttributes.ready || undefined, 30_000);
});
afterAll(async () => {
  for (const { id, token } of made) await api.call('DELETE', watchPath(id), { token });
  stream?.close();
  await new Promise((r) => receiver?.close(r));
  await api.stop();
});

describe('watches: a saved job on a Temporal Schedule, through the HTTP API', () => {
  let watchId = '';

  it("is one Temporal Schedule: overlap SKIP, a catch-up window, the client's attributes, its times", async () => {
    const res = await createWatch(acme.triple, {
      name: 'New bakeries in Luxembourg',
      maps_scrape: SMALL_MAPS,
      cadence: { cron: '0 7 * * MON-FRI', time_zone: 'Europe/Amsterdam' },
      webhook_url: receiverUrl,
    });
    expect(res.status).toBe(201);
    watchId = res.body.watch_id;
    expect(res.body).toMatchObject({
      client_id: acme.client_id,
      job_type: 'maps-scrape',
      maps_scrape: SMALL_MAPS,
      cadence: { cron: '0 7 * * MON-FRI', time_zone: 'Europe/Amsterdam' },
      catchup_window_seconds: 86_400,
      state: 'active',
      schedule_id: `watch-${watchId}`,
    });
    expect(res.body).not.toHaveProperty('last_run');
    // The run times are Temporal's, read on the watch's clock: 07:00 in Amsterdam, Monday to Friday.
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Amsterdam',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    expect(res.body.next_runs).toHaveLength(10);
    for (const at of res.body.next_runs as string[])
      expect(local.format(new Date(at))).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 07:00$/);

    const described = await schedule(watchId).describe();
    expect(described.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 86_400_000 });
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'watchRunWorkflow',
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      workflowId: watchRunWorkflowId(watchId),
    });
    expect(described.memo).toEqual({ client_id: acme.client_id, watch_id: watchId });
    expect(described.typedSearchAttributes.getAll()).toEqual(
      expect.arrayContaining([{ key: expect.objectContaining({ name: 'LeadClientId' }), value: acme.client_id }]),
    );
    // What an operator types in the Temporal UI's Schedules to see a client's watches.
    const listed = await eventually(async () => {
      const ids: string[] = [];
      for await (const s of api.rt.engines.temporal.schedule.list({ query: `LeadClientId="${acme.client_id}"` }))
        ids.push(s.scheduleId);
      return ids.includes(watchScheduleId(watchId)) ? ids : undefined;
    });
    expect(listed).toContain(watchScheduleId(watchId));
  });

  it('runs now as an ordinary job (listed, streamed, webhooks signed); a first run finds everything new', async () => {
    const triggered = await api.call('POST', watchPath(watchId, 'trigger'), { token: acme.triple });
    expect(triggered.status).toBe(202);
    expect(triggered.body).toEqual({ watch_id: watchId, triggered_at: expect.any(String) });
    const [run] = await endedRuns(api, acme.triple, watchId, 1);
    const expected = businessRefs(acme.client_id, SMALL_MAPS);
    expect(run).toMatchObject({
      watch_id: watchId,
      job_type: 'maps-scrape',
      status: 'completed',
      results_count: expected.length,
      new_leads_count: expected.length,
    });
    expect([...run.new_leads].sort()).toEqual([...expected].sort());

    // Its job is a job like any other: its workflow id is its id, it is listed, its events are streamed.
    const job = await waitForStatus(api, acme.triple, jobPath(run.job_id), ['completed']);
    expect(job).toMatchObject({ watch_id: watchId, query: SMALL_MAPS.query, results_count: expected.length });
    const list = await api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple });
    expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).toContain(run.job_id);
    await api.rt.engines.temporal.workflow.getHandle(jobWorkflowId(run.job_id)).result();
    const mine = (e: string) => (f: { event: string; data: any }) => f.event === e && f.data.job_id === run.job_id;
    await stream.next(mine('job.queued'));
    await stream.next(mine('job.completed'));
    const announced = await stream.next(mine('watch.new_leads'));
    expect(announced.data).toEqual({
      watch_id: watchId,
      job_id: run.job_id,
      job_type: 'maps-scrape',
      status: 'completed',
      client_id: acme.client_id,
      occurred_at: expect.any(String),
      scheduled_at: run.scheduled_at,
      new_leads_count: expected.length,
      new_leads: run.new_leads,
    });

    const { secret } = (await api.call('GET', '/api/v1/dashboard/webhook-secret', { token: acme.triple })).body;
    const delivered = await eventually(async () => {
      const events = deliveries.filter((d) => d.body.data.job_id === run.job_id).map((d) => d.body.event);
      return events.length === 4 ? events.sort() : undefined;
    });
    expect(delivered).toEqual(['job.completed', 'job.queued', 'job.started', 'watch.new_leads']);
    for (const d of deliveries) expect(verifyDelivery(secret, d.headers, d.raw)).toBe('ok');
    const hook = deliveries.find((d) => d.body.event === 'watch.new_leads')!;
    expect(hook.body).toEqual({ id: announced.id, event: 'watch.new_leads', data: announced.data });
  });

  it('counts the one business that opened between runs, and nothing when nothing changed', async () => {
    sandbox().openings.open(SMALL_MAPS.query);
    const [opened] = businessRefs(acme.client_id, SMALL_MAPS, 1).filter(
      (ref) => !businessRefs(acme.client_id, SMALL_MAPS).includes(ref),
    );
    expect((await api.call('POST', watchPath(watchId, 'trigger'), { token: acme.triple })).status).toBe(202);
    const [second] = await endedRuns(api, acme.triple, watchId, 2);
    expect(second).toMatchObject({ status: 'completed', new_leads_count: 1, new_leads: [opened] });
    const announced = await stream.next((f) => f.event === 'watch.new_leads' && f.data.job_id === second.job_id);
    expect(announced.data).toMatchObject({ new_leads_count: 1, new_leads: [opened] });

    expect((await api.call('POST', watchPath(watchId, 'trigger'), { token: acme.triple })).status).toBe(202);
    const [third] = await endedRuns(api, acme.triple, watchId, 3);
    expect(third).toMatchObject({ status: 'completed', new_leads_count: 0, new_leads: [] });
    expect(third.results_count).toBe(second.results_count); // it found them all again, none for the first time
    // A run's record ends after its announcement: nothing was announced for this one.
    const events = await api.rt.engines.redis.xrange(`events:client:${acme.client_id}`, '-', '+');
    const announcedFor = events.filter(([, f]) => f[1] === 'watch.new_leads').map(([, f]) => JSON.parse(f[3]).job_id);
    expect(announcedFor).toEqual(expect.arrayContaining([second.job_id]));
    expect(announcedFor).not.toContain(third.job_id);

    const got = await api.call('GET', watchPath(watchId), { token: acme.triple });
    expect(got.body.last_run).toEqual(third);
  });

  it("a run's job is cancelled like any job; a run asked for meanwhile starts after it, never beside it", async () => {
    const slow = await createWatch(acme.triple, {
      name: 'Slow florists',
      maps_scrape: { query: 'florist sbx-slow-1000', country_code: 'LU', max_locations: 2 },
      cadence: { interval_seconds: 86_400 },
    });
    expect(slow.status).toBe(201);
    const id = slow.body.watch_id;
    expect((await api.call('POST', watchPath(id, 'trigger'), { token: acme.triple })).status).toBe(202);
    const first = await eventually(async () => {
      const res = await api.call('GET', watchPath(id, 'runs'), { token: acme.triple });
      return res.body.runs[0];
    });
    await waitForStatus(api, acme.triple, jobPath(first.job_id), ['processing']);
    // Asked for twice while the first is going: one run waits for it, none runs beside it.
    for (let i = 0; i < 2; i++)
      expect((await api.call('POST', watchPath(id, 'trigger'), { token: acme.triple })).status).toBe(202);
    const cancelled = await api.call('POST', jobPath(first.job_id, 'cancel'), { token: acme.triple });
    expect(cancelled.status).toBe(200);
    const [second, ended] = await endedRuns(api, acme.triple, id, 2);
    expect(ended).toMatchObject({ job_id: first.job_id, status: 'cancelled' });
    expect(second.status).toBe('completed');
    expect(Date.parse(second.started_at)).toBeGreaterThanOrEqual(Date.parse(ended.completed_at));
  }, 150_000);

  it('counts two runs under one workflow id as two runs, each with its own job', async () => {
    // What Temporal does with a run triggered while one triggered in the same second is going: it starts it under
    // the same workflow id (the id carries the second it was taken in) once the first has closed.
    const created = await createWatch(acme.triple, {
      name: 'Same-second runs',
      maps_scrape: SMALL_MAPS,
      cadence: { interval_seconds: 86_400 },
    });
    const id = created.body.watch_id;
    const workflowId = `${watchRunWorkflowId(id)}-2026-11-26T06:00:00Z`;
    const start = () =>
      api.rt.engines.temporal.workflow.execute(watchRunWorkflow, {
        taskQueue: api.config.TEMPORAL_TASK_QUEUE,
        workflowId,
        args: [{ watch_id: id, client_id: acme.client_id }],
      });
    const one = await start();
    const two = await start();
    expect(one).toMatchObject({ status: 'completed' });
    expect(two).toMatchObject({ status: 'completed' });
    expect(two.job_id).not.toBe(one.job_id);
    const runs = await endedRuns(api, acme.triple, id, 2);
    expect(runs.map((r) => r.job_id).sort()).toEqual([one.job_id, two.job_id].sort());
  });

  it('pauses and resumes the schedule; a paused watch lists no next runs; updates reach the schedule', async () => {
    const paused = await api.call('POST', watchPath(watchId, 'pause'), { token: acme.triple });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: 'paused', next_runs: [] });
    expect((await schedule(watchId).describe()).state.paused).toBe(true);
    expect((await api.call('POST', watchPath(watchId, 'pause'), { token: acme.triple })).body.state).toBe('paused');
    const listed = await api.call('GET', `${WATCHES}?state=paused`, { token: acme.triple });
    expect(listed.body.watches.map((w: { watch_id: string }) => w.watch_id)).toEqual([watchId]);
    expect(listed.body.watches[0]).not.toHaveProperty('next_runs');

    const resumed = await api.call('POST', watchPath(watchId, 'resume'), { token: acme.triple });
    expect(resumed.body).toMatchObject({ state: 'active', next_runs: expect.any(Array) });
    expect((await schedule(watchId).describe()).state.paused).toBe(false);

    const updated = await api.call('PATCH', watchPath(watchId), {
      token: acme.triple,
      body: { name: 'Bakeries, twice a day', cadence: { interval_seconds: 43_200 }, catchup_window_seconds: 3600 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Bakeries, twice a day', cadence: { interval_seconds: 43_200 } });
    const runs = (updated.body.next_runs as string[]).map((t) => Date.parse(t));
    expect(runs[1] - runs[0]).toBe(43_200_000);
    const described = await schedule(watchId).describe();
    expect(described.spec.intervals).toMatchObject([{ every: 43_200_000 }]);
    expect(described.policies.catchupWindow).toBe(3_600_000);

    const wrongKind = await api.call('PATCH', watchPath(watchId), {
      token: acme.triple,
      body: { research: { companies: [{ name: 'Bakkerij de Zon' }] } },
    });
    expect(wrongKind.status).toBe(422);
    expect(wrongKind.body.errors[0].field).toBe('research');
  });

  it('refuses a cadence it cannot read, never runs or runs too often (422), and a watch too many (409)', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{}, 'cadence', /exactly one/],
      [{ interval_seconds: 86_400, cron: '0 7 * * *' }, 'cadence', /exactly one/],
      [{ interval_seconds: 600 }, 'cadence.interval_seconds', /at most every 3600 seconds/],
      [{ interval_seconds: 86_400, time_zone: 'Europe/Amsterdam' }, 'cadence.time_zone', /cron only/],
      [{ cron: '61 7 * * *' }, 'cadence.cron', /minute "61": .*expected range 0-59/],
      [{ cron: '0 7 * *' }, 'cadence.cron', /five are needed/],
      [{ cron: '0 7 * * MON-XYZ' }, 'cadence.cron', /day of week "MON-XYZ": .*"xyz"/],
      [{ cron: '0 7 * * 5-1' }, 'cadence.cron', /day of week "5-1": Invalid range/],
      // What cron-parser reads but Temporal does not (# and ? the contract's pattern refuses already).
      [{ cron: '0 7 L * *' }, 'cadence.cron', /day of month "L" is not a value, range or step Temporal reads/],
      [{ cron: '0 7 31 4 *' }, 'cadence.cron', /never runs/],
      [{ cron: '0 7 30 2 *' }, 'cadence.cron', /never runs/],
      [{ cron: '*/15 * * * *' }, 'cadence.cron', /as often as every 900 seconds/],
      [{ cron: '59 23 * * *,0 0 * * *' }, 'cadence.cron', /five are needed/],
      [{ cron: '0 7 * * *', time_zone: 'Mars/Olympus_Mons' }, 'cadence.time_zone', /not an IANA time zone/],
    ];
    for (const [cadence, field, message] of cases) {
      const res = await api.call('POST', WATCHES, {
        token: globex.triple,
        body: { name: 'Bad cadence', maps_scrape: SMALL_MAPS, cadence },
      });
      expect({ cadence, status: res.status }).toEqual({ cadence, status: 422 });
      expect({ cadence, field: res.body.errors?.[0]?.field }).toEqual({ cadence, field });
      expect(res.body.detail).toMatch(message);
    }
    const unknownRegion = await api.call('POST', WATCHES, {
      token: globex.triple,
      body: {
        name: 'x',
        maps_scrape: { ...SMALL_MAPS, region_codes: ['LU-ZZ'] },
        cadence: { interval_seconds: 86_400 },
      },
    });
    expect(unknownRegion.status).toBe(422);
    expect(unknownRegion.body.errors[0].field).toBe('maps_scrape.region_codes');

    // Runs exactly the minimum apart (07:00 and 08:00, then the next day's 07:00): allowed.
    const hourly = await createWatch(globex.triple, {
      name: 'first',
      maps_scrape: SMALL_MAPS,
      cadence: { cron: '0 7,8 * * *', time_zone: 'Asia/Tokyo' },
    });
    expect(hourly.status).toBe(201);
    // WATCHES_MAX_PER_CLIENT is 3 here: two more, then one too many.
    for (const name of ['second', 'third']) {
      const ok = await createWatch(globex.triple, {
        name,
        research: { companies: [{ name: 'Bakkerij de Zon', domain: 'dezon.example' }] },
        cadence: { cron: '@daily' },
      });
      expect(ok.status).toBe(201);
    }
    const over = await createWatch(globex.triple, {
      name: 'fourth',
      maps_scrape: SMALL_MAPS,
      cadence: { interval_seconds: 86_400 },
    });
    expect(over.status).toBe(409);
    expect(over.body.detail).toMatch(/at most 3/);
  });

  it("answers another client's watch with 404 for every operation, and lists only the caller's", async () => {
    for (const [method, what, body] of [
      ['GET', undefined, undefined],
      ['PATCH', undefined, { name: 'Mine now' }],
      ['DELETE', undefined, undefined],
      ['POST', 'pause', undefined],
      ['POST', 'resume', undefined],
      ['POST', 'trigger', undefined],
      ['GET', 'runs', undefined],
    ] as const) {
      const res = await api.call(method, watchPath(watchId, what), { token: globex.triple, body });
      expect({ method, what, status: res.status }).toEqual({ method, what, status: 404 });
    }
    const listed = await api.call('GET', WATCHES, { token: globex.triple });
    expect(listed.body.watches.map((w: { client_id: string }) => w.client_id)).not.toContain(acme.client_id);
    expect((await api.call('GET', watchPath(watchId), { token: acme.triple })).status).toBe(200);
  });

  it('a retried first step of a run makes no second job', async () => {
    const { startWatchRun } = api.rt.modules.watches.activities;
    const input = {
      watch_id: watchId,
      client_id: acme.client_id,
      run_id: `${watchRunWorkflowId(watchId)}-2030-01-01T06:00:00Z`, // as Temporal names a scheduled run
      scheduled_at: '2030-01-01T06:00:00.000Z',
    };
    const before = (await api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple })).body.total;
    const [first, again] = [await startWatchRun(input), await startWatchRun(input)];
    const jobId = first.job!.input.job_id;
    expect(again.job?.input.job_id).toBe(jobId);
    const after = (await api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple })).body.total;
    expect(after).toBe(before + 1);
    // The start sweep leaves a watch's queued job to its run's workflow, however long it has waited.
    await JobModel.updateOne({ _id: jobId, client_id: acme.client_id }, { $set: { created_at: new Date(0) } });
    expect(await api.rt.modules.jobs.sweep()).toBe(0);
    expect((await api.call('GET', jobPath(jobId), { token: acme.triple })).body.status).toBe('queued');
    await api.call('POST', jobPath(jobId, 'cancel'), { token: acme.triple });
  });

  it('a keyed create or trigger retried after a lost answer makes one watch and asks for one run', async () => {
    const hooli = await createClient(api, admin, 'Hooli Watches');
    const keyed = (key: string, body?: Record<string, unknown>) => ({
      token: hooli.triple,
      body,
      headers: { 'idempotency-key': `"${key}"` },
    });
    const body = { name: 'Keyed', maps_scrape: SMALL_MAPS, cadence: { interval_seconds: 86_400 } };
    const first = await api.call('POST', WATCHES, keyed('create-1', body));
    const again = await api.call('POST', WATCHES, keyed('create-1', body));
    expect(first.status).toBe(201);
    made.push({ id: first.body.watch_id, token: hooli.triple });
    expect([again.status, again.body.watch_id]).toEqual([201, first.body.watch_id]);
    const listed = await api.call('GET', WATCHES, { token: hooli.triple });
    expect(listed.body.watches.map((w: { watch_id: string }) => w.watch_id)).toEqual([first.body.watch_id]);

    const trigger = watchPath(first.body.watch_id, 'trigger');
    const asked = await api.call('POST', trigger, keyed('trigger-1'));
    const retried = await api.call('POST', trigger, keyed('trigger-1'));
    expect(asked.status).toBe(202);
    expect([retried.status, retried.body]).toEqual([202, asked.body]); // the first answer: no second trigger
    expect(await endedRuns(api, hooli.triple, first.body.watch_id, 1)).toHaveLength(1);
  });

  it("a deactivated client's watch runs nothing; deleting a watch deletes its schedule", async () => {
    const { client: initech, id } = await dailyWatchOfNewClient('Initech Watches', 'Dormant');
    const deactivated = await api.call('PATCH', `/api/v1/dashboard/admin/clients/${initech.client_id}`, {
      token: admin,
      body: { is_active: false },
    });
    expect(deactivated.status).toBe(200);
    const asAdmin = { token: admin, headers: { 'X-Selected-Client-Id': initech.client_id } };
    expect((await api.call('POST', watchPath(id, 'trigger'), asAdmin)).status).toBe(202);
    const started = await eventually(async () => (await schedule(id).describe()).info.recentActions[0]);
    const outcome = await api.rt.engines.temporal.workflow.getHandle(started.action.workflow.workflowId).result();
    expect(outcome).toEqual({ status: 'skipped', reason: 'the client is deactivated' });
    expect((await api.call('GET', watchPath(id, 'runs'), asAdmin)).body.total).toBe(0);
    expect((await api.call('GET', '/api/v1/dashboard/client/jobs', asAdmin)).body.total).toBe(0);

    const deleted = await api.call('DELETE', watchPath(id), asAdmin);
    expect(deleted.body).toEqual({ watch_id: id, deleted: true });
    await expect(schedule(id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await api.call('GET', watchPath(id), asAdmin)).status).toBe(404);
    expect((await api.call('GET', watchPath(id, 'runs'), asAdmin)).status).toBe(404);
    expect((await api.call('DELETE', watchPath(id), asAdmin)).status).toBe(404);
  });

  it('a schedule left without its watch (a create Temporal carried out after the deadline) removes itself', async () => {
    const { client: umbrella, id } = await dailyWatchOfNewClient('Umbrella Watches', 'Orphaned');
    // What the create's undo leaves when Temporal made the schedule after the request gave up on it: no record.
    await WatchModel.deleteOne({ _id: id, client_id: umbrella.client_id });
    await schedule(id).trigger();
    await eventually(() =>
      schedule(id)
        .describe()
        .then(
          () => undefined,
          (err) => err instanceof ScheduleNotFoundError || undefined,
        ),
    );
    expect((await api.call('GET', watchPath(id, 'runs'), { token: umbrella.triple })).status).toBe(404);
    expect(await JobModel.countDocuments({ client_id: umbrella.client_id })).toBe(0);
  });

  it("a super_admin names the client to create one, lists every client's; a hand-made job has none", async () => {
    const noClient = await api.call('POST', WATCHES, {
      token: admin,
      body: { name: 'x', maps_scrape: SMALL_MAPS, cadence: { interval_seconds: 86_400 } },
    });
    expect(noClient.status).toBe(422);
    const listAll = await api.call('GET', WATCHES, { token: admin });
    expect(listAll.status).toBe(200);
    expect(listAll.body.total).toBeGreaterThanOrEqual(4);
    const job = await api.call('POST', SUBMIT, { token: acme.triple, body: SMALL_MAPS });
    expect(job.status).toBe(200); // jobs submitted by hand carry no watch
    expect((await waitForStatus(api, acme.triple, jobPath(job.body.job_id), ['completed'])).watch_id).toBeNull();
  });
});

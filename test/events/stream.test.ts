import Redis from 'ioredis';
import { createEventBus } from '../../src/events/event-bus';
import { createEventHub } from '../../src/events/event-hub';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { openStream, type SseStream } from './sse-client';

let api: TestApi;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
const open: SseStream[] = [];

beforeAll(async () => {
  api = await startTestApi({ ...FAST_RETRIES, SSE_HEARTBEAT_MS: '400' });
  const admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Events');
  globex = await createClient(api, admin, 'Globex Events');
});
afterAll(async () => {
  open.forEach((s) => s.close());
  await api.stop();
});

const STREAM = '/api/v1/events/stream';
async function stream(token: string, headers: Record<string, string> = {}, query = '') {
  const s = await openStream(`${api.url}${STREAM}?token=${encodeURIComponent(token)}${query}`, headers);
  open.push(s);
  return s;
}
/** `run` with a Redis connection of its own (another process's) and, on it, an event bus; then disconnected. */
async function asAnotherProcess(run: (bus: ReturnType<typeof createEventBus>, redis: Redis) => Promise<void>) {
  const other = new Redis(process.env.REDIS_URL!, { keyPrefix: api.config.REDIS_KEY_PREFIX });
  try {
    await run(createEventBus(other, { retention: 100, windowSeconds: 60 }), other);
  } finally {
    other.disconnect();
  }
}
/** A research job's event. */
const researchEvent = (job_id: string, status: string, client_id: string) => ({
  job_id,
  job_type: 'research' as const,
  status,
  client_id,
  occurred_at: new Date().toISOString(),
});
const small = (query: string) => ({ query, country_code: 'LU', max_locations: 1, max_results: 3 });
const forJob = (id: string, event: string) => (f: { event: string; data: any }) =>
  f.event === event && f.data?.job_id === id;

describe('event stream', () => {
  it('answers 401 for a missing or bad token', async () => {
    expect((await openStream(`${api.url}${STREAM}`)).status).toBe(401);
    expect((await openStream(`${api.url}${STREAM}?token=${acme.client_id}:bad:bad`)).status).toBe(401);
  });

  it('sends connected first, then the job events in order, each with an id', async () => {
    const s = await stream(acme.triple);
    expect(s.status).toBe(200);
    const connected = await s.next((f) => f.event === 'connected');
    expect(s.frames[0]).toBe(connected);
    expect(connected.data).toMatchObject({ client_id: acme.client_id });
    expect(connected.id).toMatch(/^\d+-\d+$/); // the position a reconnect resumes from
    const res = await api.call('POST', SUBMIT, { token: acme.triple, body: small('cafe') });
    const id = res.body.job_id;
    const queued = await s.next(forJob(id, 'job.queued'));
    const started = await s.next(forJob(id, 'job.started'));
    const completed = await s.next(forJob(id, 'job.completed'));
    for (const f of [queued, started, completed]) expect(f.id).toMatch(/^\d+-\d+$/);
    expect(queued.data).toMatchObject({
      job_id: id,
      job_type: 'maps-scrape',
      status: 'queued',
      client_id: acme.client_id,
    });
    expect(started.data.status).toBe('processing');
    expect(completed.data).toMatchObject({
      status: 'completed',
      results_count: 3,
      processing_time: expect.any(Number),
    });
    const job = await waitForStatus(api, acme.triple, jobPath(id), ['completed']);
    expect(completed.data.processing_time).toBe(job.processing_time);

    // A client that reconnects with the id of `connected` receives everything since, nothing before.
    const resumed = await stream(acme.triple, { 'last-event-id': connected.id! });
    const replayed = await resumed.next(forJob(id, 'job.completed'));
    const mine = resumed.frames.filter((f) => f.data?.job_id === id).map((f) => f.event);
    expect(mine).toEqual(['job.queued', 'job.started', 'job.completed']);
    expect(replayed.id).toBe(completed.id);
    resumed.close();
  });

  it('sends heartbeats every SSE_HEARTBEAT_MS', async () => {
    const s = await stream(acme.triple);
    const first = await s.next((f) => f.event === 'heartbeat', 2000);
    const second = await s.next((f) => f.event === 'heartbeat', 2000);
    expect(first.id).toBeUndefined();
    expect(Date.parse(second.data.at) - Date.parse(first.data.at)).toBeGreaterThanOrEqual(300);
  });

  it('replays what was missed after a reconnect with Last-Event-ID (header or query)', async () => {
    const s = await stream(acme.triple);
    const a = (await api.call('POST', SUBMIT, { token: acme.triple, body: small('bar') })).body.job_id;
    const last = await s.next(forJob(a, 'job.completed'));
    s.close();
    const b = (await api.call('POST', SUBMIT, { token: acme.triple, body: small('pub') })).body.job_id;
    await waitForStatus(api, acme.triple, jobPath(b), ['completed']);
    const resumes: { headers: Record<string, string>; query: string }[] = [
      { headers: { 'Last-Event-ID': last.id! }, query: '' },
      { headers: {}, query: `&last_event_id=${last.id}` },
    ];
    for (const resume of resumes) {
      const again = await stream(acme.triple, resume.headers, resume.query);
      await again.next(forJob(b, 'job.completed'));
      const jobEvents = again.frames.filter((f) => f.event.startsWith('job.'));
      expect(jobEvents.map((f) => [f.event, f.data.job_id])).toEqual([
        ['job.queued', b],
        ['job.started', b],
        ['job.completed', b],
      ]);
      again.close();
    }
  });

  it("never sends another client's events; a super_admin gets all clients' or the selected one's", async () => {
    const s = await stream(globex.triple);
    const adminToken = await api.login(ADMIN.email, ADMIN.password);
    const everything = await stream(adminToken);
    const selected = await stream(adminToken, { 'X-Selected-Client-Id': acme.client_id });
    const mine = (await api.call('POST', SUBMIT, { token: globex.triple, body: small('bakery') })).body.job_id;
    const theirs = (await api.call('POST', SUBMIT, { token: acme.triple, body: small('bakery') })).body.job_id;
    await waitForStatus(api, acme.triple, jobPath(theirs), ['completed']);
    await s.next(forJob(mine, 'job.completed'));
    expect(s.frames.filter((f) => f.data?.job_id === theirs)).toEqual([]);
    expect(s.frames.filter((f) => f.event.startsWith('job.')).every((f) => f.data.client_id === globex.client_id)).toBe(
      true,
    );
    for (const id of [mine, theirs])
      await eventually(async () => everything.frames.some(forJob(id, 'job.completed')) || undefined);
    await selected.next(forJob(theirs, 'job.completed'));
    expect(selected.frames.filter((f) => f.data?.job_id === mine)).toEqual([]);
  });

  it('fans out events published by another process through Redis', async () => {
    const s = await stream(acme.triple);
    await asAnotherProcess(async (bus) => {
      const data = researchEvent('11111111-1111-4111-8111-111111111111', 'running', acme.client_id);
      const published = await bus.publish('job.started', data);
      const got = await s.next(forJob(data.job_id, 'job.started'));
      expect(got).toEqual({ id: published.id, event: 'job.started', data });
    });
  });

  it('publishes a job event once: a repeat (a retried activity) answers the first id and appends nothing', async () => {
    await asAnotherProcess(async (bus, other) => {
      const data = researchEvent('22222222-2222-4222-8222-222222222222', 'completed', globex.client_id);
      const first = await bus.publish('job.completed', data);
      const again = await bus.publish('job.completed', { ...data, occurred_at: new Date().toISOString() });
      const failed = await bus.publish('job.failed', data);
      expect(again.id).toBe(first.id);
      expect(failed.id).not.toBe(first.id);
      const entries = (await other.xrange(`events:client:${globex.client_id}`, '-', '+')).filter(
        ([, f]) => JSON.parse(f[3]).job_id === data.job_id,
      );
      expect(entries.map(([id, f]) => [id, f[1]])).toEqual([
        [first.id, 'job.completed'],
        [failed.id, 'job.failed'],
      ]);
      const everyone = (await other.xrange('events:all', '-', '+')).filter(
        ([, f]) => JSON.parse(f[3]).job_id === data.job_id,
      );
      expect(everyone.map(([, f]) => f[1])).toEqual(['job.completed', 'job.failed']);
    });
  });

  it('counts open streams across instances on /events/status and cleans up on disconnect', async () => {
    open.forEach((s) => s.close());
    const status = () => api.call('GET', '/api/v1/events/status', { token: acme.triple });
    await eventually(async () => ((await status()).body.active_subscriptions === 0 ? true : undefined));
    const s = await stream(acme.triple);
    await s.next((f) => f.event === 'connected');
    const other = new Redis(process.env.REDIS_URL!, { keyPrefix: api.config.REDIS_KEY_PREFIX });
    const hub = createEventHub(other); // a second API instance's hub
    const unsubscribe = await hub.subscribe(acme.client_id, () => undefined);
    try {
      const body = (await status()).body;
      expect(body).toMatchObject({
        status: 'ok',
        active_subscriptions: 2,
        heartbeat_interval_seconds: 1,
        replay_window_seconds: 3600,
      });
      const others = await api.call('GET', '/api/v1/events/status', { token: globex.triple });
      expect(others.body.active_subscriptions).toBe(0);
    } finally {
      unsubscribe();
      await hub.close();
      other.disconnect();
    }
    s.close();
    await eventually(async () => ((await status()).body.active_subscriptions === 0 ? true : undefined));
  });
});

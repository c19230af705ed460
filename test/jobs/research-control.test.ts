import { ResourceModel } from '../../src/idap/resources/resource.model';
import { loadJob } from '../../src/jobs/job-store';
import { jobWorkflowId, pauseSignal, researchStateQuery, resumeSignal } from '../../workflows/jobs-signals';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, researchPath, stepStore, waitForStatus } from './support';

let api: TestApi;
let acme: Awaited<ReturnType<typeof createClient>>;

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  acme = await createClient(api, await api.login(ADMIN.email, ADMIN.password), 'Acme Control');
});
afterAll(() => api.stop());

/** Companies whose every page answers slowly, so activities are running when signals arrive. */
const slowCompanies = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `Slow ${tag} ${i}`, domain: `slow-${tag}-${i}-sbx-slow-500.example` }));

async function start(tag: string, n: number) {
  const res = await api.call('POST', '/api/v1/dashboard/client/research/submit', {
    token: acme.triple,
    body: { companies: slowCompanies(tag, n) },
  });
  expect(res.status).toBe(200);
  const id = res.body.research_id as string;
  await eventually(async () => ((await status(id)).status === 'running' ? true : undefined), 30_000, 50);
  return id;
}
const status = async (id: string) => (await api.call('GET', researchPath(id), { token: acme.triple })).body;
const act = (id: string, what: 'pause' | 'resume' | 'cancel') =>
  api.call('POST', researchPath(id, what), { token: acme.triple });
const handle = (id: string) => api.rt.engines.temporal.workflow.getHandle(jobWorkflowId(id));
const pendingActivities = async (id: string) => (await handle(id).describe()).raw.pendingActivities?.length ?? 0;
/** Activities the API's worker is running right now (none once those of a cancelled run have stopped). */
const runningActivities = () => api.rt.worker!.workers.reduce((n, w) => n + w.getStatus().numInFlightActivities, 0);

/** The activities the run scheduled between its first `from` signal and its first `to` signal. */
async function scheduledBetween(id: string, from: string, to: string) {
  const { events } = await handle(id).fetchHistory();
  const signalAt = (name: string) =>
    events!.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name);
  expect([signalAt(from), signalAt(to)].every((i) => i >= 0)).toBe(true);
  return events!.slice(signalAt(from), signalAt(to)).filter((e) => e.activityTaskScheduledEventAttributes);
}

describe('research pause, resume and cancel', () => {
  it('pauses while activities run: in-flight companies finish, then nothing runs until resume', async () => {
    const id = await start('pause', 12);
    await eventually(async () => ((await pendingActivities(id)) > 0 ? true : undefined), 10_000, 50);
    const paused = await act(id, 'pause');
    const pauseAnswered = Date.now();
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ research_id: id, status: 'paused', paused_at: expect.any(String) });
    await eventually(async () => ((await pendingActivities(id)) === 0 ? true : undefined), 15_000, 100);
    expect(await handle(id).query(researchStateQuery)).toMatchObject({ paused: true, total: 12 });
    const held = (await status(id)).progress.done;
    expect(await status(id)).toMatchObject({ status: 'paused', progress: { done: held, total: 12 } });
    expect(held).toBeLessThan(12);
    expect((await act(id, 'pause')).status).toBe(409);

    const resumeSent = Date.now();
    const resumed = await act(id, 'resume');
    expect(resumed.body).toMatchObject({ status: 'running', paused_at: null });
    expect((await act(id, 'resume')).status).toBe(409);
    const job = await waitForStatus(api, acme.triple, researchPath(id), ['completed', 'failed'], 60_000);
    expect(job).toMatchObject({ status: 'completed', progress: { done: 12, total: 12 }, results_count: 12 });
    // Nothing ran while paused: the run scheduled no activity between the pause and the resume.
    expect(await scheduledBetween(id, pauseSignal.name, resumeSignal.name)).toEqual([]);
    // The pause is not processing time: it lasted at least from the pause's answer to the resume's request.
    const leftOut = Date.parse(job.completed_at) - Date.parse(job.started_at) - job.processing_time * 1000;
    expect(Math.round(leftOut)).toBeGreaterThanOrEqual(resumeSent - pauseAnswered);
    expect((await act(id, 'pause')).status).toBe(409);
  });

  it('keeps a consistent state when pause and resume race each other', async () => {
    const id = await start('race', 8);
    const both = await Promise.all([act(id, 'pause'), act(id, 'pause')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    for (let i = 0; i < 3; i++) {
      expect((await act(id, 'resume')).status).toBe(200);
      expect((await act(id, 'pause')).status).toBe(200);
    }
    await eventually(async () => ((await handle(id).query(researchStateQuery)).paused ? true : undefined));
    expect((await act(id, 'resume')).status).toBe(200);
    await eventually(async () => (!(await handle(id).query(researchStateQuery)).paused ? true : undefined));
    const job = await waitForStatus(api, acme.triple, researchPath(id), ['completed', 'failed'], 60_000);
    expect(job).toMatchObject({ status: 'completed', progress: { done: 8, total: 8 }, paused_at: null });
  });

  it('cancels a paused job, keeping what it found', async () => {
    const id = await start('cancel-paused', 10);
    await eventually(async () => ((await status(id)).progress.done >= 1 ? true : undefined), 20_000, 50);
    expect((await act(id, 'pause')).status).toBe(200);
    await eventually(async () => ((await pendingActivities(id)) === 0 ? true : undefined), 15_000, 100);
    const cancelled = await act(id, 'cancel');
    expect(cancelled.body).toMatchObject({
      status: 'cancelled',
      message: 'Cancelled by user',
      completed_at: expect.any(String),
    });
    await expect(handle(id).result()).rejects.toThrow();
    expect((await handle(id).describe()).status.name).toBe('CANCELLED');
    const job = await status(id);
    expect(job.status).toBe('cancelled');
    expect(
      await ResourceModel.countDocuments({ client_id: acme.client_id, resource_type: 'domains', source_job_ids: id }),
    ).toBe(job.progress.done);
    const events = (await api.rt.engines.redis.xrange(`events:client:${acme.client_id}`, '-', '+'))
      .map(([, f]) => ({ event: f[1], data: JSON.parse(f[3]) }))
      .filter((e) => e.data.job_id === id);
    expect(events.map((e) => e.event)).toEqual(['job.queued', 'job.started', 'job.failed']);
    expect(events[2].data).toMatchObject({ status: 'cancelled', job_type: 'research' });
    for (const what of ['pause', 'resume', 'cancel'] as const) expect((await act(id, what)).status).toBe(409);
    expect((await api.call('GET', researchPath(id, 'results'), { token: acme.triple })).status).toBe(409);
  });

  it('cancels a job while its activities run, and the running activities stop', async () => {
    const id = await start('cancel-running', 12);
    await eventually(async () => ((await pendingActivities(id)) > 0 ? true : undefined), 10_000, 50);
    expect((await act(id, 'cancel')).body.status).toBe('cancelled');
    await expect(handle(id).result()).rejects.toThrow();
    // The activities that were running stop (they learn of the cancellation from their heartbeats) and record no
    // more progress once they have.
    await eventually(async () => (runningActivities() === 0 ? true : undefined), 30_000, 100);
    const after = (await status(id)).progress.done;
    expect(after).toBeLessThan(12);
    expect(
      await ResourceModel.countDocuments({ client_id: acme.client_id, resource_type: 'domains', source_job_ids: id }),
    ).toBe(after);
  });

  it('a company finishing as its job is cancelled is written and counted before the cancel, or not at all', async () => {
    const store = stepStore(api);
    const id = await start('cancel-step', 4);
    expect((await act(id, 'pause')).status).toBe(200);
    await eventually(async () => ((await pendingActivities(id)) === 0 ? true : undefined), 15_000, 100);
    const held = (await status(id)).progress.done;

    // A step (one company's writes) is under way when the cancel arrives: the cancel waits for it.
    let cancel!: ReturnType<typeof act>;
    const recorded = await store.recordWhileActive(id, acme.client_id, ['running', 'paused'], async () => {
      cancel = act(id, 'cancel');
      // The cancel must not land while the step holds the job: watched for two seconds (time is the subject
      // here: without the lock the cancel lands within milliseconds, and the count below is lost).
      const landed = await eventually(
        async () => ((await loadJob(id, acme.client_id))?.status === 'cancelled' ? true : undefined),
        2_000,
        50,
      ).catch(() => false);
      expect(landed).toBe(false);
      return { inc: { 'progress.done': 1 }, message: 'Researched one more' };
    });
    expect(recorded).toBe(true);
    const cancelled = await cancel;
    expect(cancelled.body).toMatchObject({ status: 'cancelled', progress: { done: held + 1 } });

    // Once the job is cancelled, a step writes nothing.
    let ran = false;
    const late = await store.recordWhileActive(id, acme.client_id, ['running', 'paused'], async () => {
      ran = true;
      return { inc: { 'progress.done': 1 }, message: 'too late' };
    });
    expect([late, ran]).toEqual([false, false]);
    expect(await status(id)).toMatchObject({ status: 'cancelled', progress: { done: held + 1 } });
  });
});

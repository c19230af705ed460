import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, expectedPlaces, jobPath, waitForStatus } from './support';
import { jobWorkflowId } from '../../workflows/jobs-signals';

let api: TestApi;
let acme: Awaited<ReturnType<typeof createClient>>;

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  acme = await createClient(api, await api.login(ADMIN.email, ADMIN.password), 'Acme Failures');
});
afterAll(() => api.stop());

const sandbox = () => api.rt.worker!.providers.sandbox!;
const base = { country_code: 'NL', region_codes: ['NL-FL'], max_locations: 2 };

async function eventsOf(jobId: string) {
  const rows = await api.rt.engines.redis.xrange(`events:client:${acme.client_id}`, '-', '+');
  return rows.map(([, f]) => ({ event: f[1], data: JSON.parse(f[3]) })).filter((e) => e.data.job_id === jobId);
}

async function run(query: string) {
  const res = await api.call('POST', SUBMIT, { token: acme.triple, body: { ...base, query } });
  expect(res.status).toBe(200);
  return waitForStatus(api, acme.triple, jobPath(res.body.job_id), ['completed', 'failed'], 45_000);
}

describe('provider failures', () => {
  it('retries 429 and 500 answers with backoff and completes the job with every result', async () => {
    sandbox().faults.reset();
    for (const query of ['shoes sbx-fail-429-x2', 'hats sbx-fail-500-x1']) {
      const job = await run(query);
      expect(job).toMatchObject({
        status: 'completed',
        error: null,
        results_count: expectedPlaces({ ...base, query }).length,
      });
    }
    expect(sandbox().faults.stats.statuses['429']).toBeGreaterThanOrEqual(2);
    expect(sandbox().faults.stats.statuses['500']).toBeGreaterThanOrEqual(1);
  });

  it('fails the job at once with a clear reason on another 4xx, and publishes job.failed', async () => {
    sandbox().faults.reset();
    const job = await run('gloves sbx-fail-403');
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/maps provider: request rejected \(403\)/);
    expect(sandbox().faults.stats.requests.maps).toBe(1); // not retried
    const handle = api.rt.engines.temporal.workflow.getHandle(jobWorkflowId(job.job_id));
    const failure = await handle.result().catch((e) => e);
    expect(failure.cause.message).toMatch(/request rejected \(403\)/); // the reason shows in the Temporal UI too
    expect((await handle.describe()).status.name).toBe('FAILED');
    const events = await eventsOf(job.job_id);
    expect(events.map((e) => e.event)).toEqual(['job.queued', 'job.started', 'job.failed']);
    expect(events[2].data).toMatchObject({
      job_id: job.job_id,
      job_type: 'maps-scrape',
      status: 'failed',
      client_id: acme.client_id,
      error: job.error,
    });
  });

  it("gives up after the retry policy's attempts when the provider keeps failing", async () => {
    sandbox().faults.reset();
    const job = await run('scarves sbx-fail-503');
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/server error \(503\)/);
    expect(sandbox().faults.stats.requests.maps).toBe(3); // JOB_RETRY_MAX_ATTEMPTS
  });

  it('treats an answer it cannot interpret as retryable, then fails with the reason', async () => {
    const job = await run('belts sbx-malformed');
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/could not be interpreted/);
  });
});

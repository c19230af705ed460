import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ResourceModel } from '../../src/idap/resources/resource.model';
import { JobItemModel } from '../../src/jobs/job.model';
import { createLogger } from '../../src/lib/logger';
import { workerFor, type ServiceWorker } from '../../src/runtime';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { spawnBeside } from '../support/second-api';
import { FAST_RETRIES, SUBMIT, expectedPlaces, jobPath, waitForStatus } from './support';
import { jobIndexWorkflowId } from '../../workflows/jobs-signals';

let api: TestApi;
let child: ChildProcess | undefined;
let replacement: ServiceWorker | undefined;

beforeAll(async () => {
  api = await startTestApi({ ...FAST_RETRIES, RUN_WORKER: 'false' });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await replacement?.shutdown();
  await api.stop();
});

const spawnWorker = () =>
  spawnBeside(api, path.join(__dirname, 'worker-process.ts'), FAST_RETRIES, (output, proc) =>
    output.includes('worker ready') ? proc : undefined,
  );

describe('a worker killed in the middle of a job', () => {
  it('lets a new worker finish the job, with no duplicate resources', async () => {
    const acme = await createClient(api, await api.login(ADMIN.email, ADMIN.password), 'Acme Crash');
    child = await spawnWorker();
    const params = { query: 'tailor sbx-slow-400', country_code: 'NL', region_codes: ['NL-ZE'], max_locations: 6 };
    const res = await api.call('POST', SUBMIT, { token: acme.triple, body: params });
    expect(res.status).toBe(200);
    const jobId = res.body.job_id;
    await eventually(
      async () => {
        const job = (await api.call('GET', jobPath(jobId), { token: acme.triple })).body;
        return job.progress.done >= 2 ? job : undefined;
      },
      60_000,
      100,
    );
    child.kill('SIGKILL'); // no graceful shutdown: an activity dies mid-flight
    await new Promise((r) => child!.once('exit', r));
    expect(() => process.kill(child!.pid!, 0)).toThrow(); // really gone
    const stalled = (await api.call('GET', jobPath(jobId), { token: acme.triple })).body;
    expect(stalled.status).toBe('processing');

    replacement = await workerFor(api.config, api.rt, {
      logger: createLogger('silent'),
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    });
    const job = await waitForStatus(api, acme.triple, jobPath(jobId), ['completed', 'failed'], 90_000);
    const expected = expectedPlaces(params);
    expect(job.error).toBeNull();
    expect(job).toMatchObject({ status: 'completed', progress: { done: 6, total: 6 }, results_count: expected.length });
    expect(job.progress.done).toBeGreaterThan(stalled.progress.done);
    const businesses = await ResourceModel.find(
      { client_id: acme.client_id, resource_type: 'businesses' },
      { 'data.place_id': 1 },
    ).lean();
    expect(businesses).toHaveLength(expected.length);
    expect(new Set(businesses.map((b: any) => b.data.place_id)).size).toBe(expected.length);
    expect(await JobItemModel.countDocuments({ client_id: acme.client_id, job_id: jobId })).toBe(expected.length);
    // The retry resumed after the locations the dead attempt stored, which its feed may not have taken: the job's
    // follow-up index workflow went through every resource of the job, and every business is found by search.
    const followUp = api.rt.engines.temporal.workflow.getHandle(jobIndexWorkflowId(jobId));
    const jobResources = await ResourceModel.countDocuments({ client_id: acme.client_id, source_job_ids: jobId });
    expect(await eventually(() => followUp.result(), 60_000)).toEqual({ indexed: jobResources });
    for (const place of expected) {
      const found = await api.call('GET', `/api/v1/idap/businesses/search?${new URLSearchParams({ q: place.name })}`, {
        token: acme.triple,
      });
      expect(found.body.items.map((i: any) => i.data.place_id)).toContain(place.place_id);
    }
  }, 180_000);
});

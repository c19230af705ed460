import { createLogger } from '../../src/lib/logger';
import { workerFor, type ServiceWorker } from '../../src/runtime';
import { createClient, eventually, useTestApi } from '../support/harness';
import { SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { jobWorkflowId } from '../../workflows/jobs-signals';

// This process's worker polls only the interactive task queue: as if every bulk worker were busy with scrapes.
const ctx = useTestApi({ WORKER_TASK_QUEUES: 'interactive' });
let bulkWorker: ServiceWorker | undefined;
afterAll(() => bulkWorker?.shutdown());

describe('task queues', () => {
  it('runs messages on the interactive queue while jobs wait on the bulk queue for a worker of their own', async () => {
    const { api, admin } = ctx;
    const temporal = api.rt.engines.temporal;
    const acme = await createClient(api, admin, 'Acme Queues');
    const submitted = await api.call('POST', SUBMIT, {
      token: acme.triple,
      body: { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 1 },
    });
    expect(submitted.status).toBe(200);
    const jobId = submitted.body.job_id as string;
    const job = temporal.workflow.getHandle(jobWorkflowId(jobId));
    // The run starts just after the answer (the job is stored first).
    const described = await eventually(() => job.describe());
    expect(described.taskQueue).toBe(api.config.bulkTaskQueue);

    // A password reset mail is delivered meanwhile: nothing on the interactive queue waits behind the job.
    const user = await api.call('POST', '/api/v1/dashboard/users', {
      token: admin,
      body: { email: 'ops@queues.test', role: 'client_user', client_id: acme.client_id, password: 'first-pass-1' },
    });
    expect(user.status).toBe(201);
    const reset = await api.call('POST', `/api/v1/dashboard/users/${user.body.user_id}/trigger-reset`, {
      token: admin,
    });
    expect(reset.status).toBe(202);
    const delivery = temporal.workflow.getHandle(reset.body.delivery_id as string);
    await delivery.result();
    expect((await delivery.describe()).taskQueue).toBe(api.config.TEMPORAL_TASK_QUEUE);
    const status = await api.call('GET', jobPath(jobId), { token: acme.triple });
    expect(status.body.status).toBe('queued'); // no bulk worker has taken it yet

    // A worker process of the bulk queue alone (WORKER_TASK_QUEUES=bulk) runs it.
    bulkWorker = await workerFor({ ...api.config, WORKER_TASK_QUEUES: ['bulk'] }, api.rt, {
      logger: createLogger('silent'),
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    });
    expect(bulkWorker.workers.map((w) => w.options.taskQueue)).toEqual([api.config.bulkTaskQueue]);
    await waitForStatus(api, acme.triple, jobPath(jobId), ['completed']);
  });
});

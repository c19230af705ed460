import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort } from '../../tools/devstack/ports';
import { processAlive } from '../../tools/devstack/process-alive';
import { startService, type ServiceProcess } from '../faults/service';
import { createTenant, request, type Tenant } from '../faults/workload';
import { ADMIN, eventually } from '../support/harness';

/**
 * The service as `npm start` runs it (src/main.ts) puts its worker in a process of its own (src/worker/worker-process.ts):
 * the API's event loop runs no activity. The worker runs the jobs, is started again when it dies, and goes with the
 * service, whether the service stops or is killed.
 */
/** The worker's pid as the banner names it, and the parent it has. */
const workerPid = (service: ServiceProcess) =>
  Number(/worker {6}a process of its own \(pid (\d+);/.exec(service.output())?.[1]);
const parentOf = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
/** The live worker processes that are the service's children. */
const workersOf = (service: ServiceProcess) =>
  fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && processAlive(Number(p)))
    .filter((p) => {
      try {
        return parentOf(Number(p)) === service.pid && /worker\.ts/.test(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'));
      } catch {
        return false; // gone between the listing and the read
      }
    })
    .map(Number);

describe("the service's worker process", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-process-'));
  const suffix = randomBytes(4).toString('hex');
  let service: ServiceProcess;
  let tenant: Tenant;

  const completes = async (tag: string) => {
    const submitted = await request(service.url, 'POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', {
      token: tenant.triple,
      body: { query: `bakery ${tag}`, country_code: 'LU', max_locations: 1, max_results: 3 },
    });
    expect(submitted.status).toBe(200);
    const statusPath = `/api/v1/dashboard/client/jobs/${submitted.body.job_id}/status`;
    return eventually(
      async () => {
        const job = await request(service.url, 'GET', statusPath, { token: tenant.triple });
        return job.body?.status === 'completed' ? job.body : undefined;
      },
      60_000,
      200,
      `job ${tag} completed`,
    );
  };

  beforeAll(async () => {
    // The run's engines (the global setup's) and its workflow bundle, under names of this file's own.
    service = await startService({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      // The worker's log (its own file) shows its warm-up at info.
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      MONGODB_DB: `worker_process_${suffix}`,
      REDIS_KEY_PREFIX: `worker-process:${suffix}:`,
      TEMPORAL_TASK_QUEUE: `worker-process-${suffix}`,
      RUN_WORKER: 'true', // (with the run's engines configured it would default to false)
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      WARM_UP_ON_START: 'true',
      HTTP_MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    const admin = (await request(service.url, 'POST', '/api/v1/auth/login', { body: ADMIN })).body.access_token;
    tenant = await createTenant(service.url, admin, `Worker Process ${suffix}`);
  }, 180_000);
  afterAll(async () => {
    await service?.kill9();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('indexes the place dataset before it polls, not on its first job (WARM_UP_ON_START)', async () => {
    const lines = fs
      .readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; regions?: number });
    const warmed = lines.findIndex((l) => l.msg === 'worker warmed up: places indexed');
    const polling = lines.findIndex((l) => l.msg === 'temporal worker started');
    expect([warmed >= 0, polling >= 0]).toEqual([true, true]);
    expect(warmed).toBeLessThan(polling);
    expect(lines[warmed].regions).toBeGreaterThan(1000);
  });

  it('runs the jobs in a process of its own, started again when it dies', async () => {
    const first = await eventually(async () => workerPid(service) || undefined, 10_000, 50, 'the banner');
    expect(first).toBeGreaterThan(0);
    expect(first).not.toBe(service.pid);
    expect(parentOf(first)).toBe(service.pid);
    await completes('first');

    process.kill(first, 'SIGKILL');
    await eventually(async () => (processAlive(first) ? undefined : true), 10_000, 50, 'the killed worker gone');
    // A new worker takes over (the service logs it as an error).
    await eventually(
      async () => (/the worker process exited; starting it again/.test(service.output()) ? true : undefined),
      10_000,
      100,
      'the restart logged',
    );
    await completes('after the restart');
  }, 180_000);

  it('starts it again when a restart fails too', async () => {
    const running = await eventually(async () => workersOf(service)[0], 10_000, 50, 'a running worker');
    const ready = path.join(dataDir, 'worker.health');
    process.kill(running, 'SIGKILL');
    // The next worker is killed while it starts (its health file not yet written): that restart fails.
    const starting = await eventually(
      async () => workersOf(service).find((pid) => pid !== running),
      20_000,
      20,
      'the next worker starting',
    );
    expect(fs.existsSync(ready)).toBe(false);
    process.kill(starting, 'SIGKILL');
    await eventually(
      async () => (/the worker process did not start; trying again/.test(service.output()) ? true : undefined),
      20_000,
      100,
      'the failed restart logged',
    );
    // And one more start, after a longer pause, runs the jobs again.
    await completes('after a failed restart');
    const now = workersOf(service);
    expect(now).toHaveLength(1);
    expect([running, starting]).not.toContain(now[0]);
  }, 180_000);

  it('goes with the service when the service is killed', async () => {
    const workers = workersOf(service);
    expect(workers).toHaveLength(1);
    await service.kill9();
    // Ended by the devstack's reaper: SIGTERM at once, SIGKILL after 3 s. Time is the subject: a worker nobody
    // ended would run on, and 15 s leaves a loaded machine its slack.
    await eventually(async () => (processAlive(workers[0]) ? undefined : true), 15_000, 100, 'the worker gone');
  }, 60_000);
});

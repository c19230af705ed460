import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../tools/devstack/ports';
import { processAlive } from '../../tools/devstack/process-alive';
import { startService, type ServiceProcess } from './service';
import { createTenant, expectedPlaces, jobStatus, request, submitJob } from './workload';

/**
 * The restart a new user does: `npm start` (the service with its own devstack), a maps-scrape job in flight,
 * the service killed with kill -9, `npm start` again on the same data directory. Its engines must go with it
 * within seconds, the second start must run exactly one set of engines, and the job must finish once.
 */
const ADMIN = { email: 'lifecycle@example.test', password: 'lifecycle-password-123' };
const say = (line: string) => process.stdout.write(`[faults] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Processes whose command line names this data directory, or that work inside it (redis-server rewrites its
 * command line, but runs in its --dir): the engines running on its files.
 */
function enginesOn(dataDir: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      if (cmdline.includes(dataDir) || cwd.startsWith(dataDir))
        found.push({ pid: Number(entry), command: path.basename(cmdline.split(' ')[0]) });
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

const lockOf = (dataDir: string) =>
  JSON.parse(fs.readFileSync(path.join(dataDir, 'devstack.lock'), 'utf8')) as { pid: number; engine_pids: number[] };

describe('npm start, kill -9, npm start again on the same data directory', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-lifecycle-'));
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    // No engine URL: the service starts its own devstack, as `npm start` does.
    for (const name of ['MONGODB_URI', 'REDIS_URL', 'TEMPORAL_ADDRESS']) expect(process.env[name]).toBeUndefined();
    env = {
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      MONGODB_DB: 'lifecycle',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      JOB_RETRY_INITIAL_MS: '500',
      JOB_RETRY_MAX_ATTEMPTS: '12',
      JOB_HEARTBEAT_TIMEOUT_MS: '5000',
    };
  });
  afterAll(async () => {
    await service?.stop();
    for (const e of enginesOn(dataDir)) process.kill(e.pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends with exactly one set of engines and the job done once', async () => {
    let started = Date.now();
    service = await startService(env);
    say(`first start: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const first = lockOf(dataDir);
    expect(first.pid).toBe(service.pid);
    expect(
      enginesOn(dataDir)
        .map((e) => e.pid)
        .sort(),
    ).toEqual([...first.engine_pids].sort());
    expect(first.engine_pids).toHaveLength(3);

    // A second service on the same directory while the first lives is refused, and disturbs nothing.
    const refused = await startService(env, 60_000).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/is in use by a running service \(pid \d+/);
    expect(enginesOn(dataDir)).toHaveLength(3);

    const login = await request(service.url, 'POST', '/api/v1/auth/login', { body: ADMIN });
    const tenant = await createTenant(service.url, login.body.access_token, 'Lifecycle');
    const params = { query: 'bakery sbx-slow-300', country_code: 'NL', max_locations: 20 };
    const { job } = await submitJob(service.url, tenant, 'maps-scrape', params);
    expect(job).toBeDefined();
    const poll = () => request(service!.url, 'GET', jobStatus('maps-scrape', job!.id), { token: tenant.triple });
    for (let done = 0; done < 5; await sleep(200)) done = (await poll()).body?.progress?.done ?? 0;

    const killedAt = Date.now();
    await service.kill9();
    while (first.engine_pids.some(processAlive) && Date.now() - killedAt < 15_000) await sleep(100);
    const goneIn = Date.now() - killedAt;
    say(`engines gone ${(goneIn / 1000).toFixed(1)} s after kill -9 of the service`);
    expect(first.engine_pids.filter(processAlive)).toEqual([]);
    expect(goneIn).toBeLessThan(10_000);

    started = Date.now();
    service = await startService(env);
    say(`second start: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const second = lockOf(dataDir);
    expect(second.pid).toBe(service.pid);
    const running = enginesOn(dataDir);
    say(`engines on the data directory now: ${running.map((e) => `${e.command} ${e.pid}`).join(', ')}`);
    expect(running.map((e) => e.pid).sort()).toEqual([...second.engine_pids].sort());
    expect(
      running
        .map((e) => e.command)
        .sort()
        .join(' '),
    ).toMatch(/^(ferretdb|mongod)\S* redis-server temporal$/);

    let status: any;
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(500)) {
      status = (await poll()).body;
      if (['completed', 'failed', 'cancelled'].includes(status?.status)) break;
    }
    const expected = expectedPlaces(params).length;
    expect(status).toMatchObject({
      status: 'completed',
      error: null,
      results_count: expected,
      progress: { done: 20, total: 20 },
    });
    const results = await request(service.url, 'GET', `/api/v1/dashboard/client/jobs/${job!.id}/results?page_size=1`, {
      token: tenant.triple,
    });
    expect(results.body.total).toBe(expected);

    // A clean stop takes the engines and the lock with it.
    await service.stop();
    service = undefined;
    expect(second.engine_pids.filter(processAlive)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'devstack.lock'))).toBe(false);
  }, 420_000);
});

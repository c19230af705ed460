import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import mongoose from 'mongoose';
import { loadConfig, type Config } from '../../src/lib/config';
import { createLogger } from '../../src/lib/logger';
import { startApi, type ApiRuntime } from '../../src/runtime';
import { createLocks } from '../../src/lib/locks';
import type { Clock } from '../../src/lib/clock';

export const ADMIN = { email: 'root@example.test', password: 'root-password-123' };

/** The lock the search index's maintenance takes turns with (what the worker passes to indexResources). */
export const indexLock = (api: TestApi) => createLocks(api.rt.engines.redis).run;

export interface TestApi {
  url: string;
  rt: ApiRuntime;
  config: Config;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  login(email?: string, password?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * The real API on port 0 against the run's engines, with this test file's own database, Redis key
 * prefix and Temporal task queue, and a worker built exactly as production builds it.
 */
export interface TestApiOptions {
  logDestination?: NodeJS.WritableStream;
  /** The clock the API reads limits' windows and the like from (test/support/fake-clock.ts); the system's if unset. */
  clock?: Clock;
}

export async function startTestApi(env: Record<string, string> = {}, opts: TestApiOptions = {}): Promise<TestApi> {
  const suffix = randomBytes(4).toString('hex');
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    MONGODB_DB: `test_${suffix}`,
    REDIS_KEY_PREFIX: `test:${suffix}:`,
    TEMPORAL_TASK_QUEUE: `test-${suffix}`,
    DATA_DIR: path.join(process.env.TEST_DATA_DIR!, suffix),
    RUN_WORKER: 'true',
    // The worker inside the test's process (its activities, sandbox and bundle within reach of the test); the
    // process of its own that the service starts by default is held by test/runtime/worker-process.test.ts.
    WORKER_IN_API_PROCESS: 'true',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    // The tests' webhook, callback and deploy-hook receivers listen on loopback, which the service refuses
    // unless told (test/security/outbound.test.ts checks the refusal, and the default with this unset).
    OUTBOUND_ALLOW_PRIVATE: 'true',
    // The API shares the test process, whose loop a loaded CI machine stalls for seconds at times: shedding on
    // event-loop delay would refuse a test's request for the machine's sake (test/system/load-shedding sets it).
    HTTP_MAX_EVENT_LOOP_DELAY_MS: '0',
    // Seconds of start per test file otherwise (test/runtime/warm-up.test.ts turns it on).
    WARM_UP_ON_START: 'false',
    // Likewise the document engine answers slowly at times on a loaded CI machine, and 2 s without a free
    // connection would fail a test's request for the machine's sake (test/system/pool-wait sets its own bound).
    MONGO_WAIT_QUEUE_TIMEOUT_MS: '15000',
    ...env,
  });
  const rt = await startApi(config, {
    logger: createLogger(config.LOG_LEVEL, opts.logDestination as never),
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    clock: opts.clock,
  });
  const call = async (method: string, p: string, opts: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(`${rt.url}${p}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    url: rt.url,
    rt,
    config,
    call,
    async login(email = ADMIN.email, password = ADMIN.password) {
      const res = await call('POST', '/api/v1/auth/login', { body: { email, password } });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.access_token as string;
    },
    async stop() {
      await mongoose.connection.dropDatabase().catch(() => undefined);
      await rt.stop();
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export { eventually } from './eventually';

/** A client with a credential triple, created through the super-admin API. */
export async function createClient(api: TestApi, adminToken: string, name = 'Acme', domains: string[] = []) {
  const res = await api.call('POST', '/api/v1/dashboard/admin/clients', {
    token: adminToken,
    body: { name, content_domains: domains, admin_email: `admin@${name.toLowerCase().replace(/\W/g, '')}.test` },
  });
  if (res.status !== 201) throw new Error(`create client failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.body, triple: `${res.body.client_id}:${res.body.api_key}:${res.body.api_secret}` as string };
}

/**
 * Registers beforeAll/afterAll for a describe block: the API started with `env`, and a super_admin
 * session. Read `ctx.api` and `ctx.admin` inside tests (they are set once beforeAll has run).
 */
export function useTestApi(env: Record<string, string> = {}, opts: TestApiOptions = {}) {
  const ctx = {} as { api: TestApi; admin: string };
  beforeAll(async () => {
    ctx.api = await startTestApi(env, opts);
    ctx.admin = await ctx.api.login();
  });
  afterAll(() => ctx.api?.stop());
  return ctx;
}

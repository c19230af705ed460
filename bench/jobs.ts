/**
 * Maps-scrape jobs under load, side by side with raw baselines measured in the same run:
 *
 *   - submit latency (p50/p99) of JOBS submits sent at once, and of PACED submits IN_FLIGHT at a
 *     time, vs. starting no-op workflows the same two ways straight through the Temporal client;
 *   - time until the last job.completed event arrives on the SSE stream;
 *   - resources written per second by the job pipeline (end to end, wall clock) vs. bulk-inserting
 *     the very same documents with the MongoDB driver; and, to separate storage from orchestration,
 *     the pipeline's idempotent write path alone (writeResources) on the same documents.
 *
 *   npm run bench:jobs   (BENCH_JOBS=200, BENCH_PACED=40, BENCH_IN_FLIGHT=4, BENCH_MAX_LOCATIONS=2,
 *                         BENCH_MAX_RESULTS=40)
 *
 * The API runs as `npm start` runs it on the local default (devstack engines, the sandbox provider
 * server), with LOG_LEVEL=warn; the worker runs in its own process (`npm run worker`), as in
 * production, so that workflow and activity work does not share the API's event loop.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { chunksOf } from '../src/lib/arrays';
import { ResourceModel } from '../src/idap/resources/resource.model';
import { JobItemModel, JobModel } from '../src/jobs/job.model';
import { resourceWrite, writeResources } from '../src/idap/resources/resource-writes';
import type { ResourceType } from '../src/idap/resources/resource.model';
import { benchConfig, startBenchApi, startWorkerProcess, streamFrames, verdict } from './support';

const JOBS = Number(process.env.BENCH_JOBS ?? 200);
const MAX_LOCATIONS = Number(process.env.BENCH_MAX_LOCATIONS ?? 2);
const MAX_RESULTS = Number(process.env.BENCH_MAX_RESULTS ?? 40);
const PACED = Number(process.env.BENCH_PACED ?? 40);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const COUNTRIES = ['NL', 'BE', 'DE', 'FR', 'LU', 'AT', 'DK', 'PT'];

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await work();
  return [value, performance.now() - t];
}

/** Runs `n` calls with at most `inFlight` at a time; answers their durations. */
async function inBatches(n: number, inFlight: number, call: (i: number) => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) out.push(await call(next++));
    }),
  );
  return out;
}

/** Counts job.completed/job.failed frames on the SSE stream until `n` jobs have finished. */
async function watchCompletions(url: string, n: number) {
  let finished = 0;
  let failed = 0;
  const stream = await streamFrames(url, (frame) => {
    if (!/^event: job\.(?:completed|failed)$/m.test(frame)) return false;
    finished += 1;
    if (frame.includes('event: job.failed')) failed += 1;
    return finished >= n;
  });
  return { done: stream.done.then(() => ({ at: performance.now(), failed })), close: stream.close };
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') }); // retried activities are part of the run, not news
  const admin = { email: 'bench@bench.example', password: 'bench-password-123' };
  // Development: the local default, whose provider adapters are the sandbox server's.
  const { config, dataDir } = benchConfig('jobs', {
    NODE_ENV: 'development',
    BOOTSTRAP_ADMIN_EMAIL: admin.email,
    BOOTSTRAP_ADMIN_PASSWORD: admin.password,
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(3).toString('hex')}`,
    SSE_HEARTBEAT_MS: '60000',
    // Search indexing is a follow-up workflow per job that starts after its job.completed; left out
    // by default so that the figures are the job pipeline's (JOB_INDEX_RESULTS=true includes it).
    JOB_INDEX_RESULTS: process.env.JOB_INDEX_RESULTS ?? 'false',
    // The burst is BENCH_JOBS submits at once: the pipeline's throughput, not the backlog bound, is measured here.
    JOB_MAX_UNFINISHED: process.env.JOB_MAX_UNFINISHED ?? '0',
    // Nor the one client's own bounds on jobs (docs/security.md, "Jobs per tenant").
    JOB_CLIENT_MAX_UNFINISHED: process.env.JOB_CLIENT_MAX_UNFINISHED ?? '0',
    JOB_CLIENT_PER_DAY: process.env.JOB_CLIENT_PER_DAY ?? '0',
    JOB_CLIENT_PER_MONTH: process.env.JOB_CLIENT_PER_MONTH ?? '0',
  });
  const api = await startBenchApi(config, 'engines, API and worker');
  let worker: ChildProcess | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      worker?.kill('SIGKILL');
      await api.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    })());
  // Interrupted (Ctrl-C, a timeout): still stop the engines and the worker this run started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  const call = async (method: string, p: string, token: string | null, body?: unknown) => {
    const res = await fetch(`${api.url}${p}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  try {
    const d = api.devstack;
    worker = await startWorkerProcess({
      MONGODB_URI: config.MONGODB_URI ?? d!.mongo!.url,
      MONGODB_DB: config.MONGODB_DB,
      REDIS_URL: config.REDIS_URL ?? d!.redis!.url,
      TEMPORAL_ADDRESS: api.temporalAddress,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      CREDENTIALS_KEY: api.credentialsKey,
      DATA_DIR: dataDir,
      NODE_ENV: 'development',
      JOB_INDEX_RESULTS: config.JOB_INDEX_RESULTS ? 'true' : 'false',
    });
    const login = await call('POST', '/api/v1/auth/login', null, admin);
    const newClient = async (name: string) => {
      const c = (
        await call('POST', '/api/v1/dashboard/admin/clients', login.body.access_token, {
          name,
          content_domains: [],
          admin_email: `${name}@bench.example`,
        })
      ).body;
      return { id: c.client_id as string, triple: `${c.client_id}:${c.api_key}:${c.api_secret}` };
    };
    const submit = (triple: string, i: number) =>
      timed(async () => {
        const res = await call('POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', triple, {
          query: `shop ${i}`,
          country_code: COUNTRIES[i % COUNTRIES.length],
          max_locations: MAX_LOCATIONS,
          max_results: MAX_RESULTS,
        });
        if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
      }).then(([, took]) => took);
    const stream = (triple: string, n: number) =>
      watchCompletions(`${api.url}/api/v1/events/stream?token=${encodeURIComponent(triple)}`, n);

    // Warm-up: one job end to end (dataset loading, first workflow tasks, connection pools).
    const warm = await newClient('warmup');
    const warmWatch = await stream(warm.triple, 1);
    await submit(warm.triple, 0);
    await warmWatch.done;
    warmWatch.close();

    // Steady submits: PACED jobs, IN_FLIGHT at a time, the pipeline otherwise idle.
    const paced = await newClient('paced');
    const pacedWatch = await stream(paced.triple, PACED);
    process.stdout.write(`submitting ${PACED} jobs, ${IN_FLIGHT} at a time...\n`);
    const steady = await inBatches(PACED, IN_FLIGHT, (i) => submit(paced.triple, 1000 + i));
    await pacedWatch.done;
    pacedWatch.close();

    // The burst: JOBS submits at once, then until the last job.completed.
    const burst = await newClient('burst');
    const watch = await stream(burst.triple, JOBS);
    process.stdout.write(
      `submitting ${JOBS} maps-scrape jobs at once (max_locations ${MAX_LOCATIONS}, max_results ${MAX_RESULTS})...\n`,
    );
    const t0 = performance.now();
    const submits = await Promise.all(Array.from({ length: JOBS }, (_, i) => submit(burst.triple, i)));
    const ticker = setInterval(async () => {
      const byStatus = await JobModel.aggregate([
        { $match: { client_id: burst.id } },
        { $group: { _id: '$status', n: { $sum: 1 } } },
      ]);
      process.stdout.write(
        `  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${byStatus.map((g) => `${g._id} ${g.n}`).join(', ')}\n`,
      );
    }, 15_000);
    const { at: lastCompleted, failed } = await watch.done.finally(() => clearInterval(ticker));
    watch.close();
    const pipelineSeconds = (lastCompleted - t0) / 1000;
    const written = await ResourceModel.countDocuments({ client_id: burst.id });
    const items = await JobItemModel.countDocuments({ client_id: burst.id });

    // Baseline 1: starting no-op workflows the same two ways (a task queue nobody polls; terminated after).
    const temporal = api.engines.temporal;
    const noop = () =>
      timed(() =>
        temporal.workflow.start('benchNoopWorkflow', {
          taskQueue: `${config.TEMPORAL_TASK_QUEUE}-noop`,
          workflowId: `bench-noop-${randomBytes(6).toString('hex')}`,
          args: [],
        }),
      ).then(([, took]) => took);
    const starts = await Promise.all(Array.from({ length: JOBS }, noop));
    const steadyStarts = await inBatches(PACED, IN_FLIGHT, noop);
    for await (const wf of temporal.workflow.list({
      query: `TaskQueue="${config.TEMPORAL_TASK_QUEUE}-noop" AND ExecutionStatus="Running"`,
    })) {
      await temporal.workflow
        .getHandle(wf.workflowId)
        .terminate('benchmark baseline')
        .catch(() => undefined);
    }

    // Baseline 2: the same documents, bulk-inserted by the driver into a scratch collection.
    const docs = await ResourceModel.find({ client_id: burst.id }).lean<Record<string, unknown>[]>();
    const scratch = api.engines.mongoose.connection.db!.collection('bench_raw_insert');
    const [, rawMs] = await timed(async () => {
      for (const part of chunksOf(docs, 1000)) await scratch.insertMany(part, { ordered: false });
    });
    await scratch.drop().catch(() => undefined);

    // The pipeline's own write path on the same documents, for a fresh tenant (so every id is new,
    // as for a job's first findings), in the batch size one location produces.
    const tenant = `bench-${randomBytes(4).toString('hex')}`;
    const writes = docs.map((doc: any) =>
      resourceWrite(tenant, doc.resource_type as ResourceType, doc._id, doc.data, {
        jobId: 'bench',
        related: doc.related,
      }),
    );
    const [, pathMs] = await timed(async () => {
      for (const part of chunksOf(writes, 100)) await writeResources(part);
    });

    const ingestRate = written / pipelineSeconds;
    const rawRate = docs.length / (rawMs / 1000);
    const pathRate = writes.length / (pathMs / 1000);
    const ratio = (x: number, y: number) => `${(x / y).toFixed(2)}x`;
    const row = (label: string, ours: number[], raw: number[], p: number): [string, string, string, string] => [
      label,
      ms(pct(ours, p)),
      ms(pct(raw, p)),
      ratio(pct(ours, p), pct(raw, p)),
    ];
    [submits, starts, steady, steadyStarts].forEach((l) => l.sort((x, y) => x - y));
    const rows: [string, string, string, string][] = [
      row(`submit p50, ${JOBS} at once`, submits, starts, 50),
      row(`submit p99, ${JOBS} at once`, submits, starts, 99),
      row(`submit p50, ${IN_FLIGHT} in flight`, steady, steadyStarts, 50),
      row(`submit p99, ${IN_FLIGHT} in flight`, steady, steadyStarts, 99),
      ['resources written / s', ingestRate.toFixed(0), rawRate.toFixed(0), ratio(ingestRate, rawRate)],
      ['  write path alone / s', pathRate.toFixed(0), rawRate.toFixed(0), ratio(pathRate, rawRate)],
    ];
    const w = [26, 16, 16, 8];
    const line = (cells: string[]) => cells.map((c, i) => (i ? c.padStart(w[i]) : c.padEnd(w[i]))).join('  ');
    process.stdout.write(`\n${line(['', 'maps-scrape jobs', 'raw baseline', 'ratio'])}\n`);
    for (const r of rows) process.stdout.write(`${line(r)}\n`);
    process.stdout.write(
      '(raw baselines: no-op workflow starts through the Temporal client; insertMany of the same documents)\n',
    );
    process.stdout.write(
      `\n${JOBS} jobs at once (${failed} failed): last job.completed after ${pipelineSeconds.toFixed(1)} s; ` +
        `${written} resources and ${items} job results written; ` +
        `engines: ${Object.values(api.engines.kinds).join(', ')}; ` +
        `search indexing of results: ${config.JOB_INDEX_RESULTS ? 'on' : 'off (JOB_INDEX_RESULTS=true includes it)'}\n`,
    );
    process.stdout.write(
      'targets: submit p99 < 50 ms ' +
        `(burst ${verdict(pct(submits, 99) < 50)}, ${IN_FLIGHT} in flight ${verdict(pct(steady, 99) < 50)}); ` +
        'ingest >= 0.5x raw ' +
        `(end to end ${verdict(ingestRate / rawRate >= 0.5)}, write path ${verdict(pathRate / rawRate >= 0.5)})\n`,
    );
  } finally {
    await stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  },
);

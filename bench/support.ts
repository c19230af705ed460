// Shared by the benchmarks: the API started as `npm start` runs it, load from autocannon, a bare
// Express baseline answering the same JSON from memory, and the side-by-side table.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import express from 'express';
import { loadConfig, type Config } from '../src/lib/config';
import { createLogger } from '../src/lib/logger';
import { startApi, type ApiRuntime } from '../src/runtime';
import { BrandModel } from '../src/brands/brand.model';
import { CLIENT_ADMIN, createAccessDecisions } from '../src/agents/access-decisions';
import { AccessRequestModel } from '../src/agents/access-request.model';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** autocannon in a worker thread, so the load generator does not share the servers' event loop. */
export async function load(
  url: string,
  headers: Record<string, string> = {},
  opts: { method?: 'GET' | 'POST'; body?: string; connections?: number } = {},
): Promise<Figures> {
  const r = await autocannon({
    url,
    connections: opts.connections ?? CONNECTIONS,
    duration: SECONDS,
    headers,
    workers: 1,
    method: opts.method ?? 'GET',
    ...(opts.body === undefined ? {} : { body: opts.body }),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

/**
 * A benchmark's settings: the API as `npm start` runs it, with LOG_LEVEL=warn so access logs are not measured, no
 * worker in the process, and a data directory and database of its own; `env` adds to them or overrides them.
 */
export function benchConfig(name: string, env: Record<string, string> = {}): { config: Config; dataDir: string } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATA_DIR: dataDir,
    CREDENTIALS_KEY: process.env.CREDENTIALS_KEY ?? randomBytes(32).toString('hex'),
    RUN_WORKER: 'false',
    MONGODB_DB: `bench_${randomBytes(3).toString('hex')}`,
    ...env,
  });
  return { config, dataDir };
}

/** Starts the API on a benchmark's settings with the devstack (or the configured engines), saying so. */
export function startBenchApi(config: Config, what = 'engines and API'): Promise<ApiRuntime> {
  process.stdout.write(`starting ${what}...\n`);
  return startApi(config, {
    logger: createLogger(config.LOG_LEVEL),
    progress: (m) => process.stdout.write(`  ${m}\n`),
  });
}

/** The API on a benchmark's settings (benchConfig); `run` gets it, then all is removed. */
export async function withBenchApi(name: string, env: Record<string, string>, run: (api: ApiRuntime) => Promise<void>) {
  const { config, dataDir } = benchConfig(name, env);
  const api = await startBenchApi(config);
  try {
    await run(api);
  } finally {
    await api.engines.mongoose.connection.dropDatabase().catch(() => undefined);
    await api.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A plain Express server answering each path with a fixed JSON body: the baseline. */
export async function bareServer(bodies: Record<string, unknown>): Promise<{ url: string; close(): void }> {
  const app = express();
  for (const [p, body] of Object.entries(bodies)) app.get(p, (_req, r) => void r.json(body));
  const server: http.Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

export function printTable(head: string[], rows: string[][]) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(`\n${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
}

/** The machine's load, for the line under a benchmark's figures. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export const machine = (api: ApiRuntime) =>
  `documents: ${api.engines.kinds.documents}, cache: ${api.engines.kinds.cache}; ` +
  `${os.cpus().length} CPUs, load average ${loadAverage()}`;

/** req/s of ours and the baseline, their ratio, and p50/p99 of each: the cells every side-by-side table shares. */
export function comparedCells(ours: Figures, base: Figures): string[] {
  return [
    ours.rps.toFixed(0),
    base.rps.toFixed(0),
    `${(ours.rps / base.rps).toFixed(2)}x`,
    `${ours.p50} / ${ours.p99}`,
    `${base.p50} / ${base.p99}`,
  ];
}

export interface Comparison {
  name: string;
  /** Our route, and the headers it needs. */
  url: string;
  headers?: Record<string, string>;
  /** The bare route answering the same. */
  bareUrl: string;
}

/** The load levels every side-by-side comparison runs at: one connection (latency) and CONNECTIONS (throughput). */
export const LOAD_LEVELS = [1, CONNECTIONS];

/**
 * Each case measured ours then bare, at one connection and at CONNECTIONS, printed as one table with the ratio
 * of requests per second and whether it meets `target`. Returns the ratios, in the order measured.
 */
export async function sideBySide(cases: Comparison[], target: number): Promise<number[]> {
  const rows: string[][] = [];
  const ratios: number[] = [];
  for (const c of cases) {
    for (const connections of LOAD_LEVELS) {
      process.stdout.write(`measuring ${c.name} (${connections} connection(s), ${SECONDS} s each)...\n`);
      const ours = await load(c.url, c.headers, { connections });
      const base = await load(c.bareUrl, {}, { connections });
      const ratio = ours.rps / base.rps;
      ratios.push(ratio);
      rows.push([
        c.name,
        String(connections),
        ...comparedCells(ours, base),
        String(ours.errors),
        ratio >= target ? 'yes' : 'NO',
      ]);
    }
  }
  printTable(
    ['case', 'conns', 'req/s', 'bare req/s', 'ratio', 'p50/p99 ms', 'bare p50/p99 ms', 'errors', `>= ${target}x`],
    rows,
  );
  return ratios;
}

/** A target's outcome as the benchmarks print it. */
export const verdict = (met: boolean, missed = 'missed') => (met ? 'met' : missed);

/** A client to measure with (and its brand 1, when asked for), and its credential triple. */
export async function benchClient(api: ApiRuntime, name: string, email: string, opts: { brand?: boolean } = {}) {
  const client = await api.modules.clients.service.create({ name, content_domains: [], admin_email: email });
  if (opts.brand) await BrandModel.create({ _id: 1, client_id: client.client_id, brand_name: 'Bench', slug: 'bench' });
  return { client, triple: `${client.client_id}:${client.api_key}:${client.api_secret}` };
}

/**
 * An agent access token for the client (scope jobs:read), its request approved directly and without limits (the
 * brand's default requests per minute would refuse the load): the approval flow is not what the benchmarks
 * measure. The request is then expired, so nothing else waits on it.
 */
export async function approvedAgentToken(api: ApiRuntime, clientId: string, ownerEmail: string): Promise<string> {
  const requests = api.modules.agents.requests;
  const receipt = await requests.request(
    { client_id: clientId, owner_email: ownerEmail, project_name: 'bench', requested_scopes: ['jobs:read'] },
    'bench',
  );
  await createAccessDecisions({ credentialsKey: api.credentialsKey }).decide(
    receipt.request_id,
    'approved',
    crypto.randomUUID(),
    CLIENT_ADMIN,
    { rate_limit_rpm: null, rate_limit_rpd: null, monthly_budget_usd: null },
  );
  await AccessRequestModel.updateOne({ _id: receipt.request_id }, { expires_at: new Date() });
  return (await requests.status(receipt.request_id, receipt.poll_token)).access_token!;
}

/** `npm run worker` against the API's engines; resolves once it polls its task queue. */
export function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../src/worker.ts')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => String(d).includes('temporal worker started') && resolve(proc));
    proc.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${err.slice(-2000)}`)));
  });
}

/**
 * Reads the server-sent event stream at `url`, handing each frame (its text) to `onFrame` as it arrives, until
 * `onFrame` answers true (`done` resolves) or `close` is called.
 */
export async function streamFrames(url: string, onFrame: (frame: string) => boolean | void) {
  const ctrl = new AbortController();
  const res = await fetch(url, { signal: ctrl.signal, headers: { accept: 'text/event-stream' } });
  const done = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      const frames = buf.split('\n\n');
      buf = frames.pop()!;
      for (const f of frames) if (onFrame(f)) return;
    }
    throw new Error('stream ended early');
  })();
  return { done, close: () => ctrl.abort() };
}

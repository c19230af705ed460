// Shared by the benchmarks: the API started as `npm start` runs it, load from autocannon, a bare
// Express baseline answering the same JSON from memory, and the side-by-side table.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import express from 'express';
import { loadConfig } from '../src/lib/config';
import { createLogger } from '../src/lib/logger';
import { startApi, type ApiRuntime } from '../src/runtime';

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

/** The API with the devstack (or configured engines), LOG_LEVEL=warn so access logs are not measured; `run` gets it, then all is removed. */
export async function withBenchApi(name: string, env: Record<string, string>, run: (api: ApiRuntime) => Promise<void>) {
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
  process.stdout.write('starting engines and API...\n');
  const api = await startApi(config, {
    logger: createLogger(config.LOG_LEVEL),
    progress: (m) => process.stdout.write(`  ${m}\n`),
  });
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

export const machine = (api: ApiRuntime) =>
  `documents: ${api.engines.kinds.documents}, cache: ${api.engines.kinds.cache}; ${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;

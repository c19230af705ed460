/**
 * Soak: the service as `npm start` runs it (its own devstack, API and worker in one process) under a
 * steady mixed workload for a bounded time - authenticated reads, public content reads, job submissions
 * and event-stream subscribers (some held open, some opened and closed) - printing throughput, p50/p99
 * per kind, errors, and the service's RSS sampled over time.
 *
 *   npm run bench:soak   (SOAK_SECONDS=300, SOAK_READS_PER_S=10, SOAK_CONTENT_PER_S=10, SOAK_JOBS_PER_MIN=12,
 *                         SOAK_SSE_HELD=5)
 *
 * Target: 0 errors, and RSS flat: the last minute's mean within 10% of the second minute's (the
 * baseline, measured in the same run; for runs under 3 minutes, the second and last fifth).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/lib/devstack/ports';
import { footprint, startService } from '../test/faults/service';
import { startSubscriber } from '../test/faults/sse';
import { createTenant, request, type Answer } from '../test/faults/workload';
import { loadAverage, printTable, verdict } from './support';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const READS_PER_S = Number(process.env.SOAK_READS_PER_S ?? 10);
const CONTENT_PER_S = Number(process.env.SOAK_CONTENT_PER_S ?? 10);
const JOBS_PER_MIN = Number(process.env.SOAK_JOBS_PER_MIN ?? 12);
const SSE_HELD = Number(process.env.SOAK_SSE_HELD ?? 5);
const ADMIN = { email: 'soak@example.test', password: 'soak-password-123' };

type Kind = 'auth read' | 'content read' | 'job submit' | 'sse connect';
const latencies: Record<Kind, number[]> = { 'auth read': [], 'content read': [], 'job submit': [], 'sse connect': [] };
const errors: Record<Kind, string[]> = { 'auth read': [], 'content read': [], 'job submit': [], 'sse connect': [] };
const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How many entries the lists of every kind hold together. */
const count = (byKind: Record<Kind, unknown[]>) => Object.values(byKind).reduce((n, l) => n + l.length, 0);
const say = (line: string) => process.stdout.write(`${line}\n`);

function record(kind: Kind, answer: Answer, ok: number) {
  if (answer.status === ok) latencies[kind].push(answer.ms);
  else
    errors[kind].push(
      answer.status ? `${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}` : (answer.error ?? 'no answer'),
    );
}

/** Fires `fire` `perSecond` times a second, on schedule whatever the answers take (an open loop), until `end`. */
async function steady(perSecond: number, end: number, fire: () => Promise<void>) {
  if (perSecond <= 0) return;
  const pending: Promise<void>[] = [];
  const interval = 1000 / perSecond;
  for (let next = Date.now(); next < end; next += interval) {
    await sleep(Math.max(0, next - Date.now()));
    pending.push(fire().catch(() => undefined));
  }
  await Promise.all(pending);
}

/** Opens an event stream and closes it once `connected` arrived; its latency is the time to that frame. */
async function sseConnect(url: string, token: string): Promise<Answer> {
  const started = performance.now();
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), 10_000);
  try {
    const res = await fetch(`${url}/api/v1/events/stream?token=${encodeURIComponent(token)}`, { signal: ctrl.signal });
    if (res.status !== 200 || !res.body) return { status: res.status, body: await res.text(), ms: 0 };
    const reader = res.body.getReader();
    let text = '';
    while (!text.includes('event: connected')) {
      const { value, done } = await reader.read();
      if (done) return { status: 0, body: null, ms: 0, error: 'stream ended before connected' };
      text += new TextDecoder().decode(value);
    }
    return { status: 200, body: null, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: 0, body: null, ms: 0, error: String(err) };
  } finally {
    clearTimeout(timer);
    ctrl.abort();
  }
}

/** The service's own figures at this moment: event-loop delay, the document engine's pool, requests in flight. */
async function serviceGauges(url: string): Promise<string> {
  const text = await fetch(url, { signal: AbortSignal.timeout(2000) })
    .then((r) => r.text())
    .catch(() => '');
  const value = (metric: string) => Number(new RegExp(`^${metric} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
  const ms = (metric: string) => Math.round(value(metric) * 1000);
  return (
    `loop p99=${ms('lead_nodejs_eventloop_lag_p99_seconds')}ms ` +
    `pool in_use=${value('lead_mongo_pool_connections{state="in_use"}')} ` +
    `waiting=${value('lead_mongo_pool_connections{state="waiting"}')}`
  );
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-soak-'));
  say(`starting the service (its own devstack in ${dataDir})...`);
  const metricsPort = await freePort();
  const profileDir = process.env.SOAK_CPU_PROFILE;
  const service = await startService(
    {
      METRICS_PORT: String(metricsPort),
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      MONGODB_DB: 'soak',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    },
    180_000,
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const gauges = () => serviceGauges(`http://127.0.0.1:${metricsPort}/metrics`);
  const rss: { t: number; rss_mb: number; fds: number }[] = [];
  try {
    const url = service.url;
    const admin = (await request(url, 'POST', '/api/v1/auth/login', { body: ADMIN })).body.access_token;
    const tenant = await createTenant(url, admin, 'Soak');
    for (let i = 0; i < 20; i++) {
      const body = {
        slug: `soak-${i}`,
        title: `Soak ${i}`,
        body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'soak' }] }] },
      };
      const post = await request(url, 'POST', '/api/v1/dashboard/content/posts', { token: tenant.triple, body });
      await request(url, 'POST', `/api/v1/dashboard/content/posts/${post.body.id}/publish`, { token: tenant.triple });
    }
    const held = Array.from({ length: SSE_HELD }, () => startSubscriber(() => url, tenant.triple));
    const started = Date.now();
    const end = started + SECONDS * 1000;
    say(
      `soaking for ${SECONDS} s: ${READS_PER_S} auth reads/s, ${CONTENT_PER_S} content reads/s, ` +
        `${JOBS_PER_MIN} jobs/min, ${SSE_HELD} streams held, 1 stream opened and closed every 2 s`,
    );
    const sampler = setInterval(async () => {
      const f = footprint(service.pid);
      rss.push({ t: Math.round((Date.now() - started) / 1000), ...f });
      const g = await gauges();
      say(
        `  t=${rss.at(-1)!.t}s rss=${f.rss_mb} MB fds=${f.fds} ` +
          `requests ok=${count(latencies)} errors=${count(errors)} ${g}`,
      );
    }, 5000);
    const jobIds: string[] = [];
    let n = 0;
    await Promise.all([
      steady(READS_PER_S, end, async () =>
        record(
          'auth read',
          await request(url, 'GET', '/api/v1/dashboard/client/jobs?page_size=5', { token: tenant.triple }),
          200,
        ),
      ),
      steady(CONTENT_PER_S, end, async () =>
        record(
          'content read',
          await request(url, 'GET', `/api/v1/content/posts/soak-${n++ % 20}`, {
            headers: { 'x-content-domain': tenant.domain },
          }),
          200,
        ),
      ),
      steady(JOBS_PER_MIN / 60, end, async () => {
        const answer = await request(url, 'POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', {
          token: tenant.triple,
          body: { query: `soak ${n++}`, country_code: 'LU', max_locations: 1, max_results: 5 },
        });
        record('job submit', answer, 200);
        if (answer.status === 200) jobIds.push(answer.body.job_id);
      }),
      steady(0.5, end, async () => record('sse connect', await sseConnect(url, tenant.triple), 200)),
    ]);
    clearInterval(sampler);
    const elapsed = (Date.now() - started) / 1000;
    // Every job submitted must also finish.
    let pending = [...jobIds];
    for (const deadline = Date.now() + 120_000; pending.length && Date.now() < deadline; await sleep(1000)) {
      const states = await Promise.all(
        pending.map((id) =>
          request(url, 'GET', `/api/v1/dashboard/client/jobs/${id}/status`, { token: tenant.triple }),
        ),
      );
      pending = pending.filter((_, i) => states[i].body?.status !== 'completed');
    }
    const unfinished = pending.length;
    await Promise.all(held.map((s) => s.stop()));
    const streamed = held.map((s) => s.received.size);

    printTable(
      ['kind', 'requests', 'per s', 'p50 ms', 'p99 ms', 'errors'],
      (Object.keys(latencies) as Kind[]).map((k) => {
        const sorted = [...latencies[k]].sort((a, b) => a - b);
        return [
          k,
          String(sorted.length + errors[k].length),
          (sorted.length / elapsed).toFixed(1),
          String(pct(sorted, 50)),
          String(pct(sorted, 99)),
          String(errors[k].length),
        ];
      }),
    );
    for (const k of Object.keys(errors) as Kind[])
      for (const e of [...new Set(errors[k])].slice(0, 5)) say(`  ${k} error: ${e}`);
    say(
      `\njobs submitted ${jobIds.length}, not completed ${unfinished}; ` +
        `held streams received ${streamed.join(', ')} job events (${jobIds.length * 3} expected each)`,
    );

    const window = SECONDS >= 180 ? 60 : Math.max(5, SECONDS / 5);
    const mean = (from: number, to: number) => {
      const s = rss.filter((r) => r.t > from && r.t <= to).map((r) => r.rss_mb);
      return s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
    };
    const baseline = mean(window, 2 * window);
    const last = mean(elapsed - window, elapsed);
    printTable(
      ['RSS (MB)', 'baseline: 2nd window', 'last window', 'ratio'],
      [[`windows of ${window} s`, baseline.toFixed(1), last.toFixed(1), `${(last / baseline).toFixed(3)}x`]],
    );
    say(`RSS samples (t s: MB): ${rss.map((r) => `${r.t}:${r.rss_mb}`).join(' ')}`);
    say(`open file descriptors: first ${rss[0]?.fds}, last ${rss.at(-1)?.fds}`);
    const totalErrors = count(errors) + unfinished;
    const flat = last <= baseline * 1.1;
    say(
      `\ntarget: 0 errors (${verdict(totalErrors === 0, `NOT met: ${totalErrors}`)}), ` +
        `RSS flat within 10% (${verdict(flat, 'NOT met')})`,
    );
    say(
      `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load average ${loadAverage()}, ` +
        `node ${process.version}`,
    );
    process.exitCode = totalErrors === 0 && flat ? 0 : 1;
  } finally {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

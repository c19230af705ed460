/**
 * Soak: the service as `npm start` runs it (its own devstack, the API, and the worker as a process of its own) under
 * the mixed load of a small multi-tenant deployment, in three phases of one run (docs/performance.md, "Load"), after
 * the fresh process's first SOAK_WARMUP_SECONDS at the mix, printed by second but not judged (a new instance's
 * compilation, pools and caches: what a deployment's ramp spares it, not the capacity the phases measure):
 *
 * 1. steady: the mix (authenticated job-list reads, public content reads, job submits, event streams held and one
 *    opened and closed every 2 s) for SOAK_SECONDS: throughput, p50/p99 and errors per kind, every job completed,
 *    and RSS flat (the last minute's mean within 10% of the second minute's; for runs under 3 minutes, the second
 *    and last fifth);
 * 2. fairness: the mix shared by SOAK_QUIET_TENANTS quiet tenants (each from a loopback address of its own) for
 *    SOAK_FAIRNESS_SECONDS, first alone (the baseline), then again beside a noisy tenant that sends 10 times what its
 *    bounds allow (a quiet tenant's share of the phase's jobs as its quota, one unfinished job at a time): the quiet
 *    tenants' p99 and errors beside the baseline's (goal: no refusal, read p99 within 1.5x), and what the noisy
 *    tenant got;
 * 3. knee: the highest multiple of the mix it holds (0 errors, read p99 under SOAK_P99_MS for a step of
 *    SOAK_KNEE_STEP_SECONDS), and of each part alone;
 * 4. overload: twice the knee for SOAK_OVERLOAD_SECONDS, then the mix (or the knee, on a machine that holds less) for
 *    SOAK_RECOVERY_SECONDS: errors by kind and status, RSS, the time until latency is back under the target, and
 *    jobs accepted against jobs completed.
 *
 *   npm run bench:soak   (SOAK_SECONDS=300 SOAK_READS_PER_S=200 SOAK_CONTENT_PER_S=200 SOAK_JOBS_PER_MIN=120
 *                         SOAK_SSE_HELD=5 SOAK_P99_MS=100 SOAK_KNEE_STEP_SECONDS=15 SOAK_KNEE_MAX=6
 *                         SOAK_WARMUP_SECONDS=20 SOAK_OVERLOAD_SECONDS=60 SOAK_RECOVERY_SECONDS=30
 *                         SOAK_FAIRNESS_SECONDS=60 SOAK_QUIET_TENANTS=3
 *                         SOAK_PHASES=steady,fairness,knee,overload;
 *                         SOAK_CPU_PROFILE=<dir> writes the service's CPU profile there when it stops;
 *                         SOAK_NODE_ARGS="--flag ..." gives the service's node its own flags)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../tools/devstack/ports';
import { footprint, startService, workerPidOf } from '../test/faults/service';
import { startSubscriber } from '../test/faults/sse';
import { createTenant, request, type Tenant } from '../test/faults/workload';
import { loadAverage, printTable, verdict } from './support';
import { KINDS, count, pct, runMix, scaled, together, unfinishedJobs, type MixResult, type Rates } from './soak-mix';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('SOAK_SECONDS', 300);
const MIX: Rates = {
  'auth read': env('SOAK_READS_PER_S', 200),
  'content read': env('SOAK_CONTENT_PER_S', 200),
  'job submit': env('SOAK_JOBS_PER_MIN', 120) / 60,
};
const SSE_HELD = env('SOAK_SSE_HELD', 5);
const P99_MS = env('SOAK_P99_MS', 100);
const STEP_SECONDS = env('SOAK_KNEE_STEP_SECONDS', 15);
const WARMUP_SECONDS = env('SOAK_WARMUP_SECONDS', 20);
const KNEE_MAX = env('SOAK_KNEE_MAX', 6);
const OVERLOAD_SECONDS = env('SOAK_OVERLOAD_SECONDS', 60);
const RECOVERY_SECONDS = env('SOAK_RECOVERY_SECONDS', 30);
const FAIRNESS_SECONDS = env('SOAK_FAIRNESS_SECONDS', 60);
const QUIET_TENANTS = env('SOAK_QUIET_TENANTS', 3);
/**
 * How many times what its bounds allow the noisy tenant sends. Its bounds: one quiet tenant's share of the phase's
 * jobs as its quota (jobs per day), and one unfinished job at a time, so what it gets done is what one more quiet
 * tenant would add; on 2 CPUs, where the job side is what limits the mix (docs/performance.md, "Load"), a noisy
 * tenant allowed more work than that would measure the machine, not the fairness.
 */
const NOISY_FACTOR = 10;
/** The loopback addresses of the noisy tenant and the first quiet one (127/8 is all on `lo`). */
const NOISY_ADDRESS = '127.0.0.2';
const quietAddress = (i: number) => `127.0.0.${3 + i}`;
/** How much slower the quiet tenants' read p99 may be beside the noisy tenant than without it (the issue's goal). */
const FAIR_P99_RATIO = 1.5;
const PHASES = new Set((process.env.SOAK_PHASES ?? 'steady,fairness,knee,overload').split(','));
const ADMIN = { email: 'soak@example.test', password: 'soak-password-123' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);
const machine = () => `load average ${loadAverage()}`;
/** The p99 a step is judged by: of its reads, or of its submits when it has no reads. */
const stepP99 = (r: MixResult) => readP99(r) || pct(r.latencies['job submit'], 99) || 0;
const readP99 = (r: MixResult) =>
  Math.max(pct(r.latencies['auth read'], 99) || 0, pct(r.latencies['content read'], 99) || 0);
/** A run whose requests went out later than their schedule (its rate was below the one asked for). */
const lagged = (r: MixResult) => r.sentOver > r.seconds + 1;
const rateText = (r: Rates) =>
  `${r['auth read']} auth reads/s, ${r['content read']} content reads/s, ${r['job submit'] * 60} jobs/min`;

/**
 * The highest multiple of `rates` the service holds for a step: up by whole multiples while it holds; if even x1
 * does not, down by halves to one that does, then the multiple halfway to the one that did not (x0.75 between
 * x0.5 and x1), so a machine below the mix gets a capacity finer than a power of two.
 */
async function kneeOf(
  run: (rates: Rates, seconds: number, tag: string) => Promise<MixResult>,
  name: string,
  rates: Rates,
): Promise<{ held: number; atKnee: MixResult | null }> {
  let held = 0;
  let atKnee: MixResult | null = null;
  const step = async (k: number) => {
    const r = await run(scaled(rates, k), STEP_SECONDS, `knee ${name} ${k}`);
    // A step whose requests went out late did not run at its multiple: it cannot say the service held that.
    const holds = !lagged(r) && count(r.errors) === 0 && stepP99(r) < P99_MS;
    say(
      `  ${name} x${k}: p99 ${stepP99(r)} ms, errors ${count(r.errors)} -> ${holds ? 'holds' : 'does not hold'}` +
        `${lagged(r) ? ` (sent over ${r.sentOver.toFixed(1)} s: the load generator lagged)` : ''} (${machine()})`,
    );
    await sleep(3000); // what the step left in flight settles before the next
    if (holds) [held, atKnee] = [k, r];
    return holds;
  };
  for (let k = 1; k <= KNEE_MAX && k >= 1 / 8; k = held >= 1 ? k + 1 : k / 2) {
    const holds = await step(k);
    if (holds && k < 1) {
      await step(k * 1.5);
      break;
    }
    if (!holds && held) break;
  }
  return { held, atKnee };
}

/** The service's own figures now: event-loop delay, the document engine's pool, requests in flight and shed. */
async function serviceGauges(url: string): Promise<{ line: string; heapUsedMb: number }> {
  const text = await fetch(url, { signal: AbortSignal.timeout(2000) })
    .then((r) => r.text())
    .catch(() => '');
  const sum = (metric: string) =>
    [...text.matchAll(new RegExp(`^${metric}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, 'gm'))].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
  const value = (metric: string) => Number(new RegExp(`^${metric} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
  const line =
    `loop p99=${Math.round(value('lead_nodejs_eventloop_lag_p99_seconds') * 1000)}ms ` +
    `pool in_use=${value('lead_mongo_pool_connections{state="in_use"}')} ` +
    `waiting=${value('lead_mongo_pool_connections{state="waiting"}')} ` +
    `in_flight=${value('lead_http_requests_in_flight')} shed=${sum('lead_http_requests_shed_total')} ` +
    `jobs unfinished=${value('lead_jobs_unfinished')} ` +
    `heap used=${Math.round(value('lead_nodejs_heap_size_used_bytes') / 1e6)}MB ` +
    `total=${Math.round(value('lead_nodejs_heap_size_total_bytes') / 1e6)}MB ` +
    `external=${Math.round(value('lead_nodejs_external_memory_bytes') / 1e6)}MB`;
  return { line, heapUsedMb: Math.round(value('lead_nodejs_heap_size_used_bytes') / 1e6) };
}

/** Read p99 over each `seconds` of a run (its last, partial second left out), and the failures there if any. */
function p99By(r: MixResult, seconds: number): string {
  const spans: string[] = [];
  const timeline = r.timeline.slice(0, -1);
  for (let i = 0; i < timeline.length; i += seconds) {
    const span = timeline.slice(i, i + seconds);
    const failed = span.reduce((n, s) => n + s.failed, 0);
    const p99 = pct(
      span.flatMap((s) => s.reads),
      99,
    );
    spans.push(`${p99 || 0}${failed ? `(${failed})` : ''}`);
  }
  return spans.join(' ');
}

function printKinds(r: MixResult) {
  printTable(
    ['kind', 'requests', 'per s', 'p50 ms', 'p99 ms', 'errors'],
    KINDS.map((k) => [
      k,
      String(r.latencies[k].length + r.errors[k].length),
      (r.latencies[k].length / Math.max(r.seconds, r.sentOver)).toFixed(1),
      String(pct(r.latencies[k], 50)),
      String(pct(r.latencies[k], 99)),
      String(r.errors[k].length),
    ]),
  );
  const tally = new Map<string, number>();
  for (const k of KINDS) for (const e of r.errors[k]) tally.set(`${k} ${e}`, (tally.get(`${k} ${e}`) ?? 0) + 1);
  for (const [key, n] of tally) say(`  errors ${key}: ${n}  e.g. ${r.examples.get(key)}`);
  if (lagged(r))
    say(`  the load generator lagged: these requests went out over ${r.sentOver.toFixed(1)} s, not ${r.seconds}`);
}

/** The 20 published posts the mix's content reads ask for (`soak-0` .. `soak-19`). */
async function publishPosts(url: string, tenant: Tenant) {
  for (let i = 0; i < 20; i++) {
    const body = {
      slug: `soak-${i}`,
      title: `Soak ${i}`,
      body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'soak' }] }] },
    };
    const post = await request(url, 'POST', '/api/v1/dashboard/content/posts', { token: tenant.triple, body });
    await request(url, 'POST', `/api/v1/dashboard/content/posts/${post.body.id}/publish`, { token: tenant.triple });
  }
}

/**
 * The fairness phase (docs/security.md, "Fairness"): the mix shared by quiet tenants with the default job bounds,
 * first alone, then beside a noisy tenant sending 10 times what its bounds allow, each from an address of its own. The quiet tenants must see no refusal and a read p99 within FAIR_P99_RATIO of their own baseline, and every
 * job they got accepted must complete. Answers whether the goal was met.
 */
async function fairness(url: string, admin: string): Promise<boolean> {
  const DEFAULT_JOBS = { max_unfinished: null, per_day: null, per_month: null };
  const quiet: Tenant[] = [];
  for (let i = 0; i < QUIET_TENANTS; i++) {
    quiet.push(await createTenant(url, admin, `Quiet ${i}`, DEFAULT_JOBS));
    await publishPosts(url, quiet[i]);
  }
  const share = scaled(MIX, 1 / QUIET_TENANTS);
  const quota = Math.round(share['job submit'] * FAIRNESS_SECONDS);
  const noisy = await createTenant(url, admin, 'Noisy', { max_unfinished: 1, per_day: quota, per_month: 0 });
  const noisyRates: Rates = { ...scaled(MIX, 0), 'job submit': (NOISY_FACTOR * quota) / FAIRNESS_SECONDS };
  say(
    `\n== fairness: ${QUIET_TENANTS} quiet tenants sharing ${rateText(MIX)} for ${FAIRNESS_SECONDS} s, alone and ` +
      `then beside a noisy tenant sending ${NOISY_FACTOR * quota} job submits from ${NOISY_ADDRESS} against its ` +
      `bounds of ${quota} jobs a day and 1 unfinished (${machine()})`,
  );
  /** The quiet tenants' run, and the jobs of it not completed afterwards. */
  const quietRun = async (tag: string) => {
    const runs = await Promise.all(
      quiet.map((t, i) => runMix(url, t, share, FAIRNESS_SECONDS, `${tag} ${i}`, quietAddress(i))),
    );
    const unfinished = await Promise.all(quiet.map((t, i) => unfinishedJobs(url, t, runs[i].jobIds, 120_000)));
    return { result: together(runs), unfinished: unfinished.flat().length };
  };
  const alone = await quietRun('fair alone');
  say('the quiet tenants alone (the baseline):');
  printKinds(alone.result);
  await sleep(3000);
  const [beside, loud] = await Promise.all([
    quietRun('fair beside'),
    runMix(url, noisy, noisyRates, FAIRNESS_SECONDS, 'noisy', NOISY_ADDRESS),
  ]);
  say('the quiet tenants beside the noisy one:');
  printKinds(beside.result);
  say('the noisy tenant:');
  printKinds(loud);
  const quietErrors = (q: typeof alone) => count(q.result.errors) + q.unfinished;
  const submitP99 = (r: MixResult) => pct(r.latencies['job submit'], 99) || 0;
  printTable(
    ['quiet tenants', 'requests', 'read p99 ms', 'submit p99 ms', 'errors', 'jobs accepted', 'not completed'],
    [
      ['alone', alone],
      ['beside the noisy tenant', beside],
    ].map(([name, q]) => {
      const { result, unfinished } = q as typeof alone;
      const requests = KINDS.reduce((n, k) => n + result.latencies[k].length + result.errors[k].length, 0);
      return [
        name as string,
        String(requests),
        String(readP99(result)),
        String(submitP99(result)),
        String(count(result.errors)),
        String(result.jobIds.length),
        String(unfinished),
      ];
    }),
  );
  const ratio = readP99(beside.result) / Math.max(1, readP99(alone.result));
  const refusals = new Map<string, number>();
  for (const e of loud.errors['job submit']) refusals.set(e, (refusals.get(e) ?? 0) + 1);
  say(
    `the noisy tenant: ${loud.latencies['job submit'].length + loud.errors['job submit'].length} submits, ` +
      `${loud.jobIds.length} accepted, refused ${[...refusals].map(([status, n]) => `${n} with ${status}`).join(', ') || 'none'}`,
  );
  const clean = quietErrors(beside) === 0;
  const close = ratio <= FAIR_P99_RATIO;
  say(
    `fairness target: the quiet tenants beside the noisy one had no error (${verdict(clean, `NOT met: ${quietErrors(beside)}`)}) ` +
      `and a read p99 within ${FAIR_P99_RATIO}x of their baseline (${verdict(close, `NOT met`)}: ` +
      `${readP99(beside.result)} against ${readP99(alone.result)} ms, ${ratio.toFixed(2)}x); ${machine()}`,
  );
  return clean && close && quietErrors(alone) === 0;
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
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(process.env.SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ],
  );
  const gauges = () => serviceGauges(`http://127.0.0.1:${metricsPort}/metrics`);
  // The worker's resident memory beside the service's: npm start runs it as a process of its own.
  const workerRss = () => {
    const pid = workerPidOf(service.pid);
    return pid === undefined ? 0 : footprint(pid).rss_mb;
  };
  const rss: { t: number; rss_mb: number; worker_rss_mb: number; fds: number; heap_mb: number }[] = [];
  let phaseStart = Date.now();
  const sampler = setInterval(async () => {
    const f = footprint(service.pid);
    const t = Math.round((Date.now() - phaseStart) / 1000);
    const g = await gauges();
    const worker = workerRss();
    rss.push({ t, ...f, worker_rss_mb: worker, heap_mb: g.heapUsedMb });
    say(`  t=${t}s rss=${f.rss_mb} MB worker rss=${worker} MB fds=${f.fds} ${g.line}`);
  }, 5000);
  /** RSS samples of one phase, from its start. */
  const phase = () => {
    phaseStart = Date.now();
    rss.length = 0;
  };
  const accepted: string[] = [];
  /** Submits that got no answer in time: the service may have recorded them (their client cannot tell). */
  let unanswered = 0;
  let exitCode = 0;
  try {
    const url = service.url;
    const admin = (await request(url, 'POST', '/api/v1/auth/login', { body: ADMIN })).body.access_token;
    const tenant: Tenant = await createTenant(url, admin, 'Soak');
    await publishPosts(url, tenant);
    const held = Array.from({ length: SSE_HELD }, () => startSubscriber(() => url, tenant.triple));
    const run = async (rates: Rates, seconds: number, tag: string) => {
      const r = await runMix(url, tenant, rates, seconds, tag);
      accepted.push(...r.jobIds);
      unanswered += r.errors['job submit'].filter((e) => !/^\d+$/.test(e)).length;
      return r;
    };

    // A fresh process answers its first seconds slowly: V8 compiles the hot paths as they run, the pools open,
    // the caches fill, in the service, its worker, the engines' first workflows and this load generator at once
    // (docs/performance.md, "A fresh process's first seconds"). That is what a deployment's ramp (a proxy's slow
    // start, instances added one at a time) spares a new instance; the phases below measure capacity, so they
    // start on a warm process. The cold start is still measured here, under the whole mix at once, and printed.
    if (WARMUP_SECONDS > 0) {
      say(`\n== a fresh process: the mix at once for ${WARMUP_SECONDS} s (printed, not judged; ${machine()})`);
      const r = await run(MIX, WARMUP_SECONDS, 'warm-up');
      printKinds(r);
      say(`read p99 by second (ms, failures in brackets): ${p99By(r, 1)}`);
      await sleep(3000); // what it left in flight settles before the phase that is judged
    }

    if (PHASES.has('steady')) {
      say(`\n== steady: ${SECONDS} s of ${rateText(MIX)}, ${SSE_HELD} streams held (${machine()})`);
      phase();
      const r = await run(MIX, SECONDS, 'steady');
      const samples = [...rss];
      const unfinished = await unfinishedJobs(url, tenant, r.jobIds, 120_000);
      printKinds(r);
      say(`read p99 by 10 s (ms, failures in brackets): ${p99By(r, 10)}`);
      say(`jobs submitted ${r.jobIds.length}, not completed ${unfinished.length}`);
      const window = SECONDS >= 180 ? 60 : Math.max(5, SECONDS / 5);
      const mean = (from: number, to: number, of: 'rss_mb' | 'worker_rss_mb' = 'rss_mb') => {
        const s = samples.filter((x) => x.t > from && x.t <= to).map((x) => x[of]);
        return s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
      };
      const baseline = mean(window, 2 * window);
      const last = mean(SECONDS - window, SECONDS);
      const [workerBaseline, workerLast] = [
        mean(window, 2 * window, 'worker_rss_mb'),
        mean(SECONDS - window, SECONDS, 'worker_rss_mb'),
      ];
      // The heap's lowest point in a window is what stays live after collections: a leak raises it, V8's
      // growth between major collections (a sawtooth in RSS) does not.
      const floor = (from: number, to: number) =>
        Math.min(...samples.filter((x) => x.t > from && x.t <= to && x.heap_mb > 0).map((x) => x.heap_mb));
      const [heapBaseline, heapLast] = [floor(window, 2 * window), floor(SECONDS - window, SECONDS)];
      printTable(
        [`windows of ${window} s`, 'baseline: 2nd window', 'last window', 'ratio'],
        [
          ['RSS, mean (MB)', baseline.toFixed(1), last.toFixed(1), `${(last / baseline).toFixed(3)}x`],
          ...(workerBaseline > 0
            ? [
                [
                  'worker RSS, mean (MB)',
                  workerBaseline.toFixed(1),
                  workerLast.toFixed(1),
                  `${(workerLast / workerBaseline).toFixed(3)}x`,
                ],
              ]
            : []),
          [
            'heap used, lowest (MB)',
            String(heapBaseline),
            String(heapLast),
            `${(heapLast / heapBaseline).toFixed(3)}x`,
          ],
        ],
      );
      say(`RSS samples (t s: MB): ${samples.map((x) => `${x.t}:${x.rss_mb}`).join(' ')}`);
      const errors = count(r.errors) + unfinished.length;
      const flat = last <= baseline * 1.1 && workerLast <= workerBaseline * 1.1;
      const fast = readP99(r) < P99_MS;
      say(
        `steady target: 0 errors (${verdict(errors === 0, `NOT met: ${errors}`)}), read p99 under ${P99_MS} ms ` +
          `(${verdict(fast, `NOT met: ${readP99(r)} ms`)}), ` +
          `RSS flat within 10% (${verdict(flat, 'NOT met')}); ${machine()}`,
      );
      if (errors || !flat || !fast || lagged(r)) exitCode = 1;
    }

    if (PHASES.has('fairness') && !(await fairness(url, admin))) exitCode = 1;

    let knee = 1;
    if (PHASES.has('knee')) {
      say(
        `\n== knee: steps of ${STEP_SECONDS} s; a step holds with 0 errors and p99 under ${P99_MS} ms ` +
          `(of its reads; of its submits when it has none)`,
      );
      const parts: [string, Rates][] = [
        ['the mix', MIX],
        ['auth reads alone', { ...scaled(MIX, 0), 'auth read': MIX['auth read'] }],
        ['content reads alone', { ...scaled(MIX, 0), 'content read': MIX['content read'] }],
        ['job submits alone', { ...scaled(MIX, 0), 'job submit': MIX['job submit'] }],
      ];
      const rows: string[][] = [];
      for (const [name, rates] of parts) {
        const { held, atKnee } = await kneeOf(run, name, rates);
        if (name === 'the mix') knee = held;
        rows.push([name, rateText(rates), `x${held}`, atKnee ? String(stepP99(atKnee)) : '-']);
      }
      printTable(['part', 'at x1', 'knee (highest multiple held)', 'p99 at the knee (ms)'], rows);
      say(`knee measured at ${machine()}`);
    }

    if (PHASES.has('overload')) {
      const k = 2 * (knee || 1); // with no multiple held at all, twice the mix
      // The normal load it drops back to: the mix, or, on a machine that holds less than the mix, the knee (the load
      // it does hold): recovery to a load past capacity would never be seen.
      const normal = knee > 0 && knee < 1 ? knee : 1;
      say(
        `\n== overload: x${k} of the mix for ${OVERLOAD_SECONDS} s, then x${normal} for ${RECOVERY_SECONDS} s ` +
          `(${machine()})`,
      );
      phase();
      const before = footprint(service.pid);
      const workerBefore = workerRss();
      const over = await run(scaled(MIX, k), OVERLOAD_SECONDS, 'overload');
      const overRss = [...rss];
      const after = await run(scaled(MIX, normal), RECOVERY_SECONDS, 'recovery');
      say(`overload x${k}:`);
      printKinds(over);
      say(`then x${normal}:`);
      printKinds(after);
      // Recovered: from this second on, no failure and every second's read p99 under the target.
      // (The timeline's last entry collects what was sent in the run's last moment: left out.)
      const clean = after.timeline.slice(0, -1).map((s) => s.failed === 0 && (pct(s.reads, 99) || 0) < P99_MS);
      const recoveredAt = clean.findIndex((_, i) => clean.slice(i).every(Boolean));
      say(`read p99 by second at x${normal} (ms, failures in brackets): ${p99By(after, 1)}`);
      const overloadJobs = over.jobIds;
      const unfinished = await unfinishedJobs(url, tenant, overloadJobs, 180_000);
      const refused = over.errors['job submit'].length;
      const peak = Math.max(...overRss.map((x) => x.rss_mb));
      const workerPeak = Math.max(...overRss.map((x) => x.worker_rss_mb));
      say(
        `RSS before ${before.rss_mb} MB, peak during overload ${peak} MB, after ${footprint(service.pid).rss_mb} MB; ` +
          `the worker's ${workerBefore}, ${workerPeak} and ${workerRss()} MB; ` +
          `fds before ${before.fds}, after ${footprint(service.pid).fds}`,
      );
      say(
        `time to recover: ${recoveredAt < 0 ? `NOT within ${RECOVERY_SECONDS} s` : `${recoveredAt} s`} ` +
          `after the load dropped back (every later second: 0 errors, read p99 under ${P99_MS} ms)`,
      );
      say(
        `jobs during overload: accepted ${overloadJobs.length}, ` +
          `completed ${overloadJobs.length - unfinished.length}, ` +
          `refused or unanswered ${refused}`,
      );
      if (unfinished.length || recoveredAt < 0) exitCode = 1;
    }

    // Nothing refused was recorded: the tenant's jobs are those accepted (200) in every phase, and at most the
    // submits that got no answer besides.
    const all = await unfinishedJobs(url, tenant, accepted, 180_000);
    const listed = await request(url, 'GET', '/api/v1/dashboard/client/jobs?page_size=1', { token: tenant.triple });
    const recorded = Number(listed.body?.total);
    say(
      `\nall phases: jobs accepted ${accepted.length}, recorded ${recorded} (submits unanswered: ${unanswered}), ` +
        `not completed ${all.length}`,
    );
    await Promise.all(held.map((s) => s.stop()));
    if (all.length || recorded < accepted.length || recorded > accepted.length + unanswered) exitCode = 1;
    say(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), ${machine()}, node ${process.version}`);
    process.exitCode = exitCode;
  } finally {
    clearInterval(sampler);
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

/**
 * The soak's workload (bench/soak.ts): the mix of authenticated job-list reads, public content reads and job
 * submits, fired open-loop at fixed rates (on schedule whatever the answers take, as independent users do), and
 * what one run of it met: latencies and errors by kind, answers per second, and the jobs it got accepted.
 */
import { Pool } from 'undici';
import { request, type Answer, type Tenant } from '../test/faults/workload';

export type Kind = 'auth read' | 'content read' | 'job submit' | 'sse connect';
export const KINDS: Kind[] = ['auth read', 'content read', 'job submit', 'sse connect'];

/** Requests a second of each kind (job submits a second too). */
export type Rates = Record<'auth read' | 'content read' | 'job submit', number>;

export const scaled = (rates: Rates, k: number): Rates => ({
  'auth read': rates['auth read'] * k,
  'content read': rates['content read'] * k,
  'job submit': rates['job submit'] * k,
});

export interface MixResult {
  seconds: number;
  /** How long sending took (the last request sent, from the start): above `seconds` when the generator lagged. */
  sentOver: number;
  latencies: Record<Kind, number[]>;
  /** Every failed answer, as its status (`503`) or what stood for it (`timeout`, `connect`...). */
  errors: Record<Kind, string[]>;
  /** A sample of each distinct failure's body, for the report. */
  examples: Map<string, string>;
  /** Per second since the start (by when each request was sent): the failures, and the reads' latencies (ms). */
  timeline: { failed: number; reads: number[] }[];
  jobIds: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
};
export const count = (byKind: Record<Kind, unknown[]>) => Object.values(byKind).reduce((n, l) => n + l.length, 0);

/**
 * Fires `fire` `perSecond` times a second, on schedule whatever the answers take (an open loop), until `end`. Every
 * request that is due when the loop wakes is sent then: a timer wakes it at most ~1,000 times a second (fewer on a
 * busy machine), so one request a wake-up would send a rate above that late, and the run would take longer than
 * asked while reporting the rate it was asked for. Answers when the last request was sent.
 */
async function steady(perSecond: number, end: number, fire: () => Promise<unknown>): Promise<number> {
  if (perSecond <= 0) return 0;
  const pending: Promise<unknown>[] = [];
  const interval = 1000 / perSecond;
  let lastSent = 0;
  for (let next = Date.now(); next < end;) {
    await sleep(Math.max(0, next - Date.now()));
    for (const now = Date.now(); next <= now && next < end; next += interval) {
      pending.push(fire().catch(() => undefined));
      lastSent = now;
    }
  }
  await Promise.all(pending);
  return lastSent;
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

/** What stands for a failed answer in the tallies: its status, or the kind of network failure. */
const failureOf = (a: Answer) =>
  a.status
    ? String(a.status)
    : /timeout/i.test(a.error ?? '')
      ? 'timeout'
      : /connect/i.test(a.error ?? '')
        ? 'connect'
        : 'no answer';

/**
 * The load generator's HTTP client: keep-alive connections of an undici pool, each request bounded like the fault
 * matrix's (15 s). It shares the machine's 2 CPUs with the service and its engines, so it must cost little: the
 * global fetch with an AbortSignal.timeout per request took ~1.1 ms of CPU a request on the development machine
 * (about 0.45 of a core at the mix's 400 requests a second), this ~0.15 ms.
 */
const pools = new Map<string, Pool>();
async function poolRequest(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Answer> {
  const poolKey = `${base} ${opts.localAddress ?? ''}`;
  let pool = pools.get(poolKey);
  if (!pool)
    pools.set(
      poolKey,
      (pool = new Pool(base, {
        connections: 256,
        headersTimeout: 15_000,
        bodyTimeout: 15_000,
        // Another loopback address (127.0.0.2) is another caller to the service's per-address share.
        ...(opts.localAddress && { localAddress: opts.localAddress }),
      })),
    );
  const started = performance.now();
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await pool.request({
      method,
      path,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.body.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    const retryAfter = res.headers['retry-after'];
    return {
      status: res.statusCode,
      body,
      ms: Math.round(performance.now() - started),
      ...(typeof retryAfter === 'string' && { retryAfter }),
    };
  } catch (err) {
    const e = err as Error & { code?: string };
    return {
      status: 0,
      body: null,
      ms: Math.round(performance.now() - started),
      error: /timeout/i.test(`${e.code} ${e.name}`) ? 'timeout' : `${e.code ?? e.name}: ${e.message}`,
    };
  }
}

/**
 * Runs the mix at `rates` for `seconds` against the service at `url`, as `tenant` (from `localAddress`, a loopback
 * address of its own, when given); answers what it met.
 */
export async function runMix(
  url: string,
  tenant: Tenant,
  rates: Rates,
  seconds: number,
  tag: string,
  localAddress?: string,
) {
  const result: MixResult = {
    seconds,
    sentOver: 0,
    latencies: { 'auth read': [], 'content read': [], 'job submit': [], 'sse connect': [] },
    errors: { 'auth read': [], 'content read': [], 'job submit': [], 'sse connect': [] },
    examples: new Map(),
    timeline: Array.from({ length: Math.ceil(seconds) + 1 }, () => ({ failed: 0, reads: [] as number[] })),
    jobIds: [],
  };
  const started = Date.now();
  const end = started + seconds * 1000;
  const record = (kind: Kind, answer: Answer, sentAt: number) => {
    const second = result.timeline[Math.min(result.timeline.length - 1, Math.floor((sentAt - started) / 1000))];
    if (answer.status === 200) {
      result.latencies[kind].push(answer.ms);
      if (kind.endsWith('read')) second.reads.push(answer.ms);
      return;
    }
    const failure = failureOf(answer);
    result.errors[kind].push(failure);
    second.failed += 1;
    const key = `${kind} ${failure}`;
    if (!result.examples.has(key))
      result.examples.set(key, answer.status ? JSON.stringify(answer.body).slice(0, 120) : (answer.error ?? ''));
  };
  const fired = (kind: Kind, call: () => Promise<Answer>) => async () => {
    const sentAt = Date.now();
    const answer = await call();
    record(kind, answer, sentAt);
    return answer;
  };
  let n = 0;
  const lastSent = await Promise.all([
    steady(
      rates['auth read'],
      end,
      fired('auth read', () =>
        poolRequest(url, 'GET', '/api/v1/dashboard/client/jobs?page_size=5', { token: tenant.triple, localAddress }),
      ),
    ),
    steady(
      rates['content read'],
      end,
      fired('content read', () =>
        poolRequest(url, 'GET', `/api/v1/content/posts/soak-${n++ % 20}`, {
          headers: { 'x-content-domain': tenant.domain },
          localAddress,
        }),
      ),
    ),
    steady(rates['job submit'], end, async () => {
      const answer = await fired('job submit', () =>
        poolRequest(url, 'POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', {
          token: tenant.triple,
          body: { query: `soak ${tag} ${n++}`, country_code: 'LU', max_locations: 1, max_results: 5 },
          localAddress,
        }),
      )();
      if (answer.status === 200) result.jobIds.push(answer.body.job_id);
    }),
    steady(
      0.5,
      end,
      fired('sse connect', () => sseConnect(url, tenant.triple)),
    ),
  ]);
  result.sentOver = (Math.max(...lastSent) - started) / 1000;
  return result;
}

/** Several runs side by side (one a tenant) as one: their latencies, failures, timelines and jobs together. */
export function together(runs: MixResult[]): MixResult {
  const [first] = runs;
  const merged: MixResult = {
    seconds: first.seconds,
    sentOver: Math.max(...runs.map((r) => r.sentOver)),
    latencies: Object.fromEntries(KINDS.map((k) => [k, runs.flatMap((r) => r.latencies[k])])) as MixResult['latencies'],
    errors: Object.fromEntries(KINDS.map((k) => [k, runs.flatMap((r) => r.errors[k])])) as MixResult['errors'],
    examples: new Map(runs.flatMap((r) => [...r.examples])),
    timeline: first.timeline.map((_, i) => ({
      failed: runs.reduce((n, r) => n + (r.timeline[i]?.failed ?? 0), 0),
      reads: runs.flatMap((r) => r.timeline[i]?.reads ?? []),
    })),
    jobIds: runs.flatMap((r) => r.jobIds),
  };
  return merged;
}

/** Jobs among `ids` not completed within `timeoutMs` (polled every second). */
export async function unfinishedJobs(url: string, tenant: Tenant, ids: string[], timeoutMs: number) {
  let pending = [...ids];
  for (const deadline = Date.now() + timeoutMs; pending.length && Date.now() < deadline; await sleep(1000)) {
    const states: Answer[] = [];
    for (let i = 0; i < pending.length; i += 50)
      states.push(
        ...(await Promise.all(
          pending
            .slice(i, i + 50)
            .map((id) => request(url, 'GET', `/api/v1/dashboard/client/jobs/${id}/status`, { token: tenant.triple })),
        )),
      );
    pending = pending.filter((_, i) => states[i].body?.status !== 'completed');
  }
  return pending;
}

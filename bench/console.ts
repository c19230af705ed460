/**
 * The console in a browser, on the local default, each figure beside a baseline measured in the same run:
 *
 *   1. entry JavaScript: what index.html loads before any route's chunk, gzipped (goal <= 200 KB), beside its raw size;
 *   2. navigation to the jobs list drawn (its first row in the DOM) with 1,000 jobs (goal < 1 s), beside the list's
 *      API call alone and a bare HTML page drawing the same rows;
 *   3. a job's status event, from its emission (the record changed by the job store, then the event published on the
 *      service's event bus, as a job's activity does) to the new status drawn in the list (goal < 500 ms), beside
 *      the same event's arrival on a bare event-stream client;
 *   4. rows in the DOM while scrolling 20,000 leads (/console/leads/businesses; bounded), beside a bare HTML table
 *      of the same 20,000 rows.
 *
 *   npm run bench:console   (BENCH_NAVIGATIONS=5, BENCH_EVENTS=10, BENCH_LEADS=20000)
 *
 * The API runs as `npm start` runs it (engines from the devstack, or MONGODB_URI, REDIS_URL, TEMPORAL_ADDRESS),
 * serving the built console (built first when stale), with no worker: the jobs and businesses are inserted into
 * their collections directly, as bench/jobs.ts and bench/idap.ts seed theirs. Debian's chromium (CHROMIUM_PATH)
 * through playwright, as the console's journeys drive it. Figures only: no test asserts wall time.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes, randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { chromium, type Page } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../console/e2e/support/chromium';
import { buildConsole } from '../scripts/console-build';
import { CONSOLE_DIST } from '../src/console/serve-console';
import { JobModel } from '../src/jobs/job.model';
import { createJobStore } from '../src/jobs/job-store';
import { createJobLocks } from '../src/jobs/job-lock';
import { createJobListIndex } from '../src/jobs/job-list-index';
import { eventData } from '../src/jobs/job.views';
import { resourceId } from '../src/idap/resources/resource-writes';
import { createLogger } from '../src/lib/logger';
import { benchClient, benchConfig, loadAverage, printTable, startBenchApi, verdict } from './support';

const NAVIGATIONS = Number(process.env.BENCH_NAVIGATIONS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10);
const JOBS = 1000;
const LEADS = Number(process.env.BENCH_LEADS ?? 20_000);
/** How long the leads table is scrolled at most (20,000 rows at 100 a load are 200 loads). */
const SCROLL_LIMIT_MS = Number(process.env.BENCH_SCROLL_LIMIT_MS ?? 180_000);
const CHUNK = 1000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const max = (xs: number[]) => Math.max(...xs);
const ms = (n: number) => `${n.toFixed(0)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** (1) The JavaScript index.html loads (its module script and what it preloads), raw and gzipped. */
function entryJavaScript() {
  const html = fs.readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
  const files = [
    ...html.matchAll(/<script[^>]+src="\/console\/([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/console\/([^"]+\.js)"/g),
  ].map((m) => m[1]);
  let raw = 0;
  let gzipped = 0;
  for (const file of new Set(files)) {
    const bytes = fs.readFileSync(path.join(CONSOLE_DIST, file));
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: new Set(files).size, raw, gzipped };
}

const STATUSES = ['completed', 'completed', 'completed', 'failed', 'cancelled'];

/** 1,000 maps-scrape job records of the client, the 20 newest queued (what the list's first page shows). */
async function seedJobs(clientId: string) {
  const now = Date.now();
  const docs = Array.from({ length: JOBS }, (_, i) => {
    const created = new Date(now - i * 60_000);
    const queued = i < 20;
    const status = queued ? 'queued' : STATUSES[i % STATUSES.length];
    return {
      _id: randomUUID(),
      client_id: clientId,
      type: 'maps-scrape',
      status,
      params: { query: `bakery ${i}`, country_code: 'NL', region_codes: ['NL-UT'], max_locations: 10 },
      progress: { done: queued ? 0 : 10, total: queued ? 0 : 10 },
      message: null,
      results_count: queued ? 0 : 40 + (i % 60),
      created_at: created,
      started_at: queued ? null : new Date(created.getTime() + 1000),
      completed_at: queued ? null : new Date(created.getTime() + 30_000),
      error: status === 'failed' ? 'The maps provider failed' : null,
    };
  });
  for (let i = 0; i < docs.length; i += CHUNK) await JobModel.insertMany(docs.slice(i, i + CHUNK), { ordered: false });
  return docs.slice(0, 20).map((d) => d._id);
}

/**
 * 20,000 businesses of the client, as maps-scrape jobs store them over time (a millisecond apart, ending a minute
 * ago, past the list's settle bound); their search postings left out.
 */
async function seedLeads(clientId: string) {
  const end = Date.now() - 60_000;
  for (let i = 0; i < LEADS; i += CHUNK) {
    const docs = Array.from({ length: Math.min(CHUNK, LEADS - i) }, (_, k) => {
      const n = i + k;
      return {
        _id: resourceId(clientId, 'businesses', `place-${n}`),
        client_id: clientId,
        resource_type: 'businesses',
        data: {
          name: `Business ${n}`,
          category: 'Bakery',
          address: `${(n % 250) + 1} High Street, Utrecht`,
          phone: `+31 30 ${String(1_000_000 + n).slice(-7)}`,
          rating: 3 + (n % 20) / 10,
          reviews_count: n % 500,
        },
        flags: ['new'],
        related: [],
        source_job_ids: ['bench'],
        created_at: new Date(end - (LEADS - n)),
        modified_at: new Date(end - (LEADS - n)),
      };
    });
    await mongoose.connection.db!.collection('idap_resources').insertMany(docs as never[], { ordered: false });
  }
}

/**
 * The browser's globals as the page functions below use them (the benchmarks are compiled without the DOM's types;
 * the console's CSP forbids evaluating strings, so they are functions).
 */
interface Browser {
  __firstRowAt?: number;
  __drawn: Record<string, number>;
  document: any;
  performance: { timeOrigin: number; now(): number };
  MutationObserver: new (callback: (records: { target: any }[]) => void) => { observe(node: any, opts: object): void };
  requestAnimationFrame(callback: (t: number) => void): number;
}

/** Records on the page when a row first appears (ms since navigation start, the page's own clock). */
const FIRST_ROW_OBSERVER = `(() => {
  const seen = () => document.querySelector('tbody tr[data-row-id]');
  const done = () => { window.__firstRowAt = performance.now(); observer.disconnect(); };
  const observer = new MutationObserver(() => seen() && done());
  observer.observe(document, { childList: true, subtree: true });
})();`;

async function timeToFirstRow(page: Page, url: string): Promise<number> {
  await page.goto(url);
  const handle = await page.waitForFunction(() => (globalThis as unknown as Browser).__firstRowAt, null, {
    timeout: 30_000,
  });
  return (await handle.jsonValue()) as number;
}

/** A bare server answering one HTML page per path: the baselines' pages. */
async function bareHtml(pages: Record<string, string>) {
  const server = http.createServer((req, res) => {
    const body = pages[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html' }).end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => server.close(),
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const tableHtml = (rows: string[][]) =>
  `<!doctype html><html><body><table><tbody>${rows
    .map((r, i) => `<tr data-row-id="${i}">${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table></body></html>`;

async function main() {
  buildConsole();
  const entry = entryJavaScript();
  const port = await freePort();
  const { config, dataDir } = benchConfig('console', {
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  const api = await startBenchApi(config);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const bare = { close: () => undefined } as { url?: string; close(): void };
  try {
    const { client, triple } = await benchClient(api, 'Bench Console', 'bench-console@example.test');
    const cid = client.client_id;
    const user = { email: 'console-user@example.test', password: `bench-${randomBytes(6).toString('hex')}-A1!` };
    await api.modules.users.service.create({ ...user, role: 'client_user', client_id: cid });
    process.stdout.write(`seeding ${JOBS} jobs and ${LEADS} businesses...\n`);
    const queued = await seedJobs(cid);
    await seedLeads(cid);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${api.url}/console/sign-in`);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.addInitScript(FIRST_ROW_OBSERVER);

    // (2) The jobs list, and its baselines: the API call alone, and a bare page drawing the same 20 rows.
    process.stdout.write(`measuring the jobs list (${NAVIGATIONS} navigations)...\n`);
    const listUrl = `${api.url}/console/jobs`;
    const cold = await timeToFirstRow(page, listUrl);
    const warm: number[] = [];
    for (let i = 0; i < NAVIGATIONS; i++) warm.push(await timeToFirstRow(page, listUrl));
    const listApi = `${api.url}/api/v1/dashboard/client/jobs?page=1&page_size=20`;
    const apiTimes: number[] = [];
    let firstPage: { jobs: { query: string; status: string; results_count: number }[]; total: number } | undefined;
    for (let i = 0; i <= NAVIGATIONS; i++) {
      const t = performance.now();
      const res = await fetch(listApi, { headers: { authorization: `Bearer ${triple}` } });
      firstPage = (await res.json()) as typeof firstPage;
      if (i > 0) apiTimes.push(performance.now() - t);
    }
    if (firstPage?.total !== JOBS) throw new Error(`the list holds ${firstPage?.total} jobs, not ${JOBS}`);
    const leadRows = Array.from({ length: LEADS }, (_, n) => [
      `Business ${n}`,
      'Bakery',
      `${(n % 250) + 1} High Street, Utrecht`,
      `+31 30 ${String(1_000_000 + n).slice(-7)}`,
    ]);
    Object.assign(
      bare,
      await bareHtml({
        '/jobs': tableHtml(firstPage.jobs.map((j) => [j.query, j.status, String(j.results_count)])),
        '/leads': tableHtml(leadRows),
      }),
    );
    const barePage = await context.newPage();
    await barePage.addInitScript(FIRST_ROW_OBSERVER);
    const bareTimes: number[] = [];
    for (let i = 0; i <= NAVIGATIONS; i++) {
      const t = await timeToFirstRow(barePage, `${bare.url}/jobs`);
      if (i > 0) bareTimes.push(t);
    }

    // (3) Status events: emitted as a job's activity does, then drawn in the list; a bare stream client beside it.
    process.stdout.write(`measuring ${EVENTS} status events to the list...\n`);
    await page.goto(listUrl);
    await page.locator('tbody tr[data-row-id]').first().waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await page.evaluate(() => {
      const w = globalThis as unknown as Browser;
      w.__drawn = {};
      new w.MutationObserver((records) => {
        for (const r of records) {
          if (r.target.dataset?.jobStatus !== 'processing') continue;
          const id = r.target.closest('tr')?.dataset.rowId;
          if (id && !w.__drawn[id]) w.__drawn[id] = w.performance.timeOrigin + w.performance.now();
        }
      }).observe(w.document.body, { attributes: true, attributeFilter: ['data-job-status'], subtree: true });
    });
    const arrived: Record<string, number> = {};
    const stream = await bareStream(`${api.url}/api/v1/events/stream`, triple, (frame) => {
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!data || !frame.includes('event: job.started')) return;
      arrived[(JSON.parse(data) as { job_id: string }).job_id] ??= Date.now();
    });
    const store = createJobStore({
      locks: createJobLocks(api.engines.redis),
      events: api.infra.events,
      listIndex: createJobListIndex(api.engines.redis, createLogger('silent')),
    });
    const drawnMs: number[] = [];
    const streamMs: number[] = [];
    for (const id of queued.slice(0, Math.min(EVENTS, queued.length))) {
      const doc = await store.start(id, cid, 'processing');
      const emitted = Date.now();
      await api.infra.events.publish('job.started', eventData(doc!, 'job.started'));
      const drawn = (await page
        .waitForFunction((job) => (globalThis as unknown as Browser).__drawn[job], id, { timeout: 10_000 })
        .then((h) => h.jsonValue())) as number;
      drawnMs.push(drawn - emitted);
      const until = Date.now() + 5000;
      while (!arrived[id] && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      if (arrived[id]) streamMs.push(arrived[id] - emitted);
    }
    stream.close();

    // (4) Leads: the DOM rows while scrolling 20,000 businesses, and a bare table of the same rows.
    process.stdout.write(`measuring the leads table while scrolling ${LEADS} businesses...\n`);
    const leads = await scrollRows(page, `${api.url}/console/leads/businesses`);
    const bareLeads = await scrollRows(barePage, `${bare.url}/leads`, { wholePage: true });

    const goalList = median(warm) < 1000;
    const goalEvent = median(drawnMs) < 500;
    printTable(
      ['figure', 'ours', 'baseline', 'baseline is', 'goal', 'met'],
      [
        [
          'entry JS, gzipped',
          kb(entry.gzipped),
          kb(entry.raw),
          `the same ${entry.files} files uncompressed`,
          '<= 200 KB',
          verdict(entry.gzipped <= 200 * 1024),
        ],
        [
          `jobs list drawn, ${JOBS} jobs (median; max)`,
          `${ms(median(warm))}; ${ms(max(warm))}`,
          `${ms(median(apiTimes))} / ${ms(median(bareTimes))}`,
          'the API call alone / a bare page of the rows',
          '< 1 s',
          verdict(goalList),
        ],
        ['  the first, just after sign-in', ms(cold), '', '', '', ''],
        [
          `status event to drawn (median; max of ${drawnMs.length})`,
          `${ms(median(drawnMs))}; ${ms(max(drawnMs))}`,
          streamMs.length ? `${ms(median(streamMs))}; ${ms(max(streamMs))}` : 'none arrived',
          'its arrival on a bare stream client',
          '< 500 ms',
          verdict(goalEvent),
        ],
        leads
          ? [
              `DOM rows scrolling ${LEADS} leads (max)`,
              `${leads.maxRows} of ${leads.total}`,
              `${bareLeads!.maxRows} of ${LEADS}`,
              'a bare table of the rows',
              'bounded (< 500)',
              verdict(leads.maxRows < 500, 'missed (500 or more)'),
            ]
          : [`DOM rows scrolling ${LEADS} leads`, 'not measured: leads page absent', '', '', 'bounded', ''],
      ],
    );
    process.stdout.write(
      `\n${api.engines.kinds.documents}, ${api.engines.kinds.cache}; chromium ${browser.version()}; load average ${loadAverage()}\n`,
    );
    await context.close();
  } finally {
    bare.close();
    await browser.close();
    await api.engines.mongoose.connection.dropDatabase().catch(() => undefined);
    await api.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A bare event-stream client (fetch, frames split on blank lines), authenticated with the credential triple. */
async function bareStream(url: string, triple: string, onFrame: (frame: string) => void) {
  const ctrl = new AbortController();
  const res = await fetch(url, {
    signal: ctrl.signal,
    headers: { accept: 'text/event-stream', authorization: `Bearer ${triple}` },
  });
  if (!res.ok || !res.body) throw new Error(`event stream: ${res.status}`);
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      const frames = buf.split('\n\n');
      buf = frames.pop()!;
      frames.forEach(onFrame);
    }
  })().catch(() => undefined);
  return { close: () => ctrl.abort() };
}

/**
 * Scrolls a table's scrolling region (or the page) to its end again and again, as a reader holding End does, counting
 * the rows in the DOM after each frame: the most seen, and how many rows the table says it has (aria-rowcount less
 * its header). A table that loads more as it is scrolled (the leads page, by its cursor) grows meanwhile; the scroll
 * ends when its count has not grown for 3 s (its end) or after SCROLL_LIMIT_MS. Null when no table row appears.
 */
async function scrollRows(page: Page, url: string, opts: { wholePage?: boolean } = {}) {
  await page.goto(url);
  const appeared = await page
    .locator('tbody tr[data-row-id]')
    .first()
    .waitFor({ timeout: 20_000 })
    .then(() => true)
    .catch(() => false);
  if (!appeared) return null;
  let maxRows = 0;
  let total = 0;
  let grewAt = Date.now();
  const started = Date.now();
  while (Date.now() - grewAt < 3_000 && Date.now() - started < SCROLL_LIMIT_MS) {
    const { rows, count } = await page.evaluate(async (whole) => {
      const w = globalThis as unknown as Browser;
      const { document } = w;
      const region = whole
        ? document.scrollingElement
        : document.querySelector('[role="region"][aria-label$="(scrollable)"]');
      region.scrollTop = region.scrollHeight;
      await new Promise((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(r)));
      return {
        rows: document.querySelectorAll('tbody tr[data-row-id]').length as number,
        count: Number(document.querySelector('table[aria-rowcount]')?.getAttribute('aria-rowcount') ?? 0) as number,
      };
    }, Boolean(opts.wholePage));
    maxRows = Math.max(maxRows, rows);
    if (count > total) {
      total = count;
      grewAt = Date.now();
    }
  }
  return { maxRows, total: total ? total - 1 : maxRows };
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

/**
 * Public content reads under load, side by side with a bare Express route that answers the same
 * JSON from memory: requests per second, p50 and p99 latency, and the ratio.
 *
 *   npm run bench:content            (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default)
 *
 * The API runs exactly as `npm start` runs it (engines from the devstack, or the configured URLs),
 * with LOG_LEVEL=warn so per-request access logs are not part of the measurement. autocannon runs
 * in a worker thread so that the load generator does not share the servers' event loop.
 */
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
import { startApi } from '../src/runtime';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DOMAIN = 'bench.example';

const paragraph = (i: number) => ({
  type: 'paragraph',
  content: [{ type: 'text', text: `Paragraph ${i}: fresh sourdough every morning, rye on Thursdays, and seasonal pastries all week long. ` }],
});

async function seed(s: Awaited<ReturnType<typeof startApi>>['services']) {
  const client = await s.clients.create({ name: 'Bench Bakery', content_domains: [DOMAIN], admin_email: 'bench@bench.example' });
  const cid = client.client_id;
  const { authoring } = s.content;
  for (let i = 0; i < 12; i++) {
    await authoring.createAuthor(cid, { full_name: `Author ${i}`, role: i % 3 === 0 ? 'editor' : 'author', bio: 'Writes about bread.' });
  }
  const category = await authoring.createTaxonomy('category', cid, { name: 'News' });
  for (let i = 0; i < 30; i++) {
    const post = await authoring.createPost(cid, {
      slug: `post-${i}`, title: `Post number ${i}`, body: { type: 'doc', content: Array.from({ length: 8 }, (_, j) => paragraph(j)) },
      author_name: `Author ${i % 12}`, tags: ['bread', `tag-${i % 5}`], category_ids: [category.id], is_featured: i % 7 === 0,
    });
    await authoring.publishPost(cid, post.id);
  }
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string> = {}): Promise<Figures> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers, workers: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-content-'));
  const config = loadConfig({
    ...process.env, NODE_ENV: 'production', PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', DATA_DIR: dataDir,
    CREDENTIALS_KEY: process.env.CREDENTIALS_KEY ?? randomBytes(32).toString('hex'), RUN_WORKER: 'false',
    MONGODB_DB: `bench_${randomBytes(3).toString('hex')}`,
  });
  const logger = createLogger(config.LOG_LEVEL);
  process.stdout.write('starting engines and API...\n');
  const api = await startApi(config, { logger, progress: (m) => process.stdout.write(`  ${m}\n`) });
  let bare: http.Server | undefined;
  try {
    await seed(api.services);
    const routes = [
      { name: 'GET /content/posts', path: '/api/v1/content/posts' },
      { name: 'GET /content/posts/{slug}', path: '/api/v1/content/posts/post-7' },
      { name: 'GET /content/authors', path: '/api/v1/content/authors' },
    ];
    // The bare baseline: the same JSON bodies, from memory, through a plain Express route each.
    const app = express();
    for (const route of routes) {
      const res = await fetch(api.url + route.path, { headers: { 'x-content-domain': DOMAIN } });
      if (res.status !== 200) throw new Error(`${route.name}: ${res.status} ${await res.text()}`);
      const body = await res.json();
      app.get(route.path, (_req, r) => void r.json(body));
    }
    bare = app.listen(0, '127.0.0.1');
    await new Promise((r) => bare!.once('listening', r));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

    const rows: string[][] = [];
    for (const route of routes) {
      process.stdout.write(`measuring ${route.name} (${CONNECTIONS} connections, ${SECONDS} s each)...\n`);
      const ours = await load(api.url + route.path, { 'x-content-domain': DOMAIN });
      const base = await load(bareUrl + route.path);
      rows.push([
        route.name, ours.rps.toFixed(0), base.rps.toFixed(0), `${(ours.rps / base.rps).toFixed(2)}x`,
        `${ours.p50} / ${ours.p99}`, `${base.p50} / ${base.p99}`, String(ours.errors),
        ours.rps >= base.rps / 2 ? 'yes' : 'NO', ours.p99 < 20 ? 'yes' : 'NO',
      ]);
    }
    const head = ['route', 'req/s', 'bare req/s', 'ratio', 'p50/p99 ms', 'bare p50/p99 ms', 'errors', '>= half bare', 'p99 < 20 ms'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
    process.stdout.write(`\n${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
    process.stdout.write(
      `\ntarget: at least half the bare route's req/s and p99 under 20 ms; documents: ${api.engines.kinds.documents}, ` +
        `cache: ${api.engines.kinds.cache}; ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`,
    );
  } finally {
    bare?.close();
    await api.services.engines.mongoose.connection.dropDatabase().catch(() => undefined);
    await api.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

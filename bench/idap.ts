/**
 * IDAP batch fetch and search over one tenant with BENCH_RESOURCES businesses (100,000 by default on
 * MongoDB), side by side with the raw MongoDB queries each operation makes, sent straight through the
 * driver: requests per second, p50 and p99 latency, and the ratio.
 *
 *   npm run bench:idap       (BENCH_RESOURCES, BENCH_SECONDS=15, BENCH_CONCURRENCY=4)
 *
 * The API runs as `npm start` runs it (engines from the devstack, or MONGODB_URI...). Businesses are
 * seeded with insertMany in chunks, their search index built in memory with the same postingsOf()
 * that the write path uses. FerretDB 1.24 (the devstack's MongoDB-wire server) answers only filters
 * that pin _id (a value, a `$in` list or a string range) from an index and scans for everything else,
 * which the index's layout avoids (see docs/idap.md).
 */
import mongoose from 'mongoose';
import { idapRef, resourceId, type ResourceType } from '../src/idap/resource.model';
import { postingsOf, fieldLengths, termsOf } from '../src/idap/postings';
import { upsertResources } from '../src/idap/resources.service';
import { createLocks } from '../src/lib/locks';

import { dfId, idPrefixRange, postingId, statsId } from '../src/idap/search-index.model';
import { tokenize } from '../src/idap/text';
import { benchClient, machine, printTable, withBenchApi } from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const CHUNK = 5000;

/** The words of lines of space-separated words. */
const words = (...lines: string[]) => lines.join(' ').split(' ');

const A = words(
  'Golden Royal Green Blue Old New Happy Little Grand Silver Red Black White Sunny Corner Village',
  'Urban Rustic Fresh Modern Classic Crystal Lucky Bright Cozy Noble Quiet Wild Iron Stone',
);
const B = words(
  'Bakery Cafe Kitchen Garden House Market Studio Works Table Bistro Tavern Deli Grill Pantry Mill',
  'Forge Salon Gallery Clinic Books Florist Tailor Barber Pharmacy Hardware Butcher Dairy Brewery Pizzeria Diner',
);
const SURNAME_STARTS = words('van de mc o al da le von');
const SURNAME_ENDS = words(
  'berg smith stone field brook wood hill ford ley ton well more dale gate wick burn shaw croft holm lund vik rup',
  'sen ssen dorf',
);
const SURNAMES = Array.from(
  { length: 200 },
  (_, i) => `${SURNAME_STARTS[i % SURNAME_STARTS.length]}${SURNAME_ENDS[i % SURNAME_ENDS.length]}`,
);
const CATEGORIES = words(
  'Bakery Cafe Restaurant Bar Hotel Pharmacy Dentist Florist Butcher Hairdresser Gym Bookshop Garage Plumber',
  'Electrician Lawyer Accountant Architect Optician Veterinarian',
);
const STREETS = words(
  'High Church Station Market Mill Park Bridge Castle Queen King Oak Elm Cedar Willow Harbour River Garden School',
  'Chapel Victoria',
);
const CITIES = words(
  'Amsterdam Utrecht Rotterdam Leiden Delft Haarlem Arnhem Zwolle Breda Tilburg Groningen Maastricht Eindhoven',
  'Nijmegen Alkmaar Gouda Hoorn Deventer Enschede Almere',
);

function business(i: number) {
  return {
    name: `${A[i % A.length]} ${B[Math.floor(i / A.length) % B.length]} ${SURNAMES[(i * 7) % SURNAMES.length]}`,
    category: CATEGORIES[(i * 3) % CATEGORIES.length],
    address: `${(i % 250) + 1} ${STREETS[(i * 11) % STREETS.length]} Street, ${CITIES[(i * 13) % CITIES.length]}`,
    rating: 3 + (i % 20) / 10,
    reviews_count: i % 500,
    phone: `+31 20 ${String(1000000 + i).slice(-7)}`,
  };
}

/** insertMany in chunks: resources, then their postings, vocabulary and stats built in memory. */
async function seed(clientId: string, n: number) {
  const db = mongoose.connection.db!;
  const now = new Date();
  const docs = Array.from({ length: n }, (_, i) => ({
    _id: resourceId(clientId, 'businesses', `place-${i}`),
    client_id: clientId,
    resource_type: 'businesses',
    data: business(i),
    flags: i % 50 === 0 ? ['rejected'] : ['new'],
    related: [],
    source_job_ids: ['bench'],
    created_at: now,
    modified_at: now,
  }));
  for (let i = 0; i < n; i += CHUNK)
    await db.collection('idap_resources').insertMany(docs.slice(i, i + CHUNK) as never[], { ordered: false });
  const stats = { docs: 0, lengths: {} as Record<string, number> };
  for (const d of docs) {
    const lengths = fieldLengths(postingsOf('businesses', d._id, d.data, stats));
    stats.docs += lengths.size ? 1 : 0;
    for (const [f, len] of lengths) stats.lengths[f] = (stats.lengths[f] ?? 0) + len;
  }
  const df = new Map<string, number>();
  let rows: object[] = [];
  let forward: object[] = [];
  let postings = 0;
  for (const d of docs) {
    const p = postingsOf('businesses', d._id, d.data, stats);
    for (const t of termsOf(p)) df.set(t, (df.get(t) ?? 0) + 1);
    rows.push(
      ...p.map((r) => ({
        _id: postingId(clientId, 'businesses', r),
        client_id: clientId,
        resource_type: 'businesses',
        ...r,
      })),
    );
    forward.push({
      _id: d._id,
      client_id: clientId,
      resource_type: 'businesses',
      postings: p.map(({ resource_id: _, ...r }) => r),
    });
    if (rows.length >= CHUNK * 4) {
      postings += rows.length;
      await db.collection('idap_terms').insertMany(rows as never[], { ordered: false });
      await db.collection('idap_doc_terms').insertMany(forward as never[], { ordered: false });
      rows = [];
      forward = [];
    }
  }
  postings += rows.length;
  if (rows.length) await db.collection('idap_terms').insertMany(rows as never[], { ordered: false });
  if (forward.length) await db.collection('idap_doc_terms').insertMany(forward as never[], { ordered: false });
  await db.collection('idap_term_df').insertMany(
    [...df].map(([term, n]) => ({
      _id: dfId(clientId, 'businesses', term),
      client_id: clientId,
      resource_type: 'businesses',
      term,
      df: n,
    })) as never[],
    { ordered: false },
  );
  await db.collection('idap_term_stats').insertOne({
    _id: statsId(clientId, 'businesses'),
    client_id: clientId,
    resource_type: 'businesses',
    ...stats,
  } as never);
  return { docs, postings, vocabulary: df.size };
}

/** The queries GET .../search makes, sent straight to the driver in the same stages (no scoring, no HTTP). */
async function rawSearch(clientId: string, q: string, limit: number) {
  const db = mongoose.connection.db!;
  const scope = { client_id: clientId, resource_type: 'businesses' };
  const tokens = tokenize(q);
  const prefix = tokens[tokens.length - 1];
  const [, vocab, completions] = await Promise.all([
    db.collection('idap_term_stats').findOne({ _id: statsId(clientId, 'businesses'), ...scope } as never),
    db
      .collection('idap_term_df')
      .find({ ...scope, _id: { $in: tokens.map((t) => dfId(clientId, 'businesses', t)) } } as never, {
        projection: { _id: 0, term: 1, df: 1 },
      })
      .toArray(),
    db
      .collection('idap_term_df')
      .find({ ...scope, _id: idPrefixRange(dfId(clientId, 'businesses', prefix), false) } as never, {
        projection: { _id: 0, term: 1, df: 1 },
      })
      .sort({ _id: 1 })
      .limit(1000)
      .toArray(),
  ]);
  const terms = [...vocab, ...completions.sort((x, y) => y.df - x.df).slice(0, 30)];
  const projection = { _id: 0, term: 1, resource_id: 1, field: 1, tf: 1, pos: 1, len: 1 };
  const lists = await Promise.all(
    terms.map((t) =>
      db
        .collection('idap_terms')
        .find({ ...scope, _id: idPrefixRange(`${dfId(clientId, 'businesses', t.term)}|`) } as never, { projection })
        .sort({ _id: 1 })
        .limit(5000)
        .toArray(),
    ),
  );
  const ids = [...new Set(lists.flat().map((p) => p.resource_id as string))].slice(0, Math.max(limit * 2, 50));
  return db
    .collection('idap_resources')
    .find({ ...scope, _id: { $in: ids as never[] }, flags: { $nin: ['rejected'] } })
    .toArray();
}

async function rawBatch(clientId: string, byType: Map<string, string[]>) {
  const db = mongoose.connection.db!;
  return Promise.all(
    [...byType].map(([type, ids]) =>
      db
        .collection('idap_resources')
        .find({ client_id: clientId, resource_type: type, _id: { $in: ids as never[] } })
        .toArray(),
    ),
  );
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  n: number;
}

/** CONCURRENCY loops calling `op` for SECONDS; latency percentiles over every call. */
async function measure(op: (i: number) => Promise<unknown>): Promise<Figures> {
  const latencies: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const t0 = process.hrtime.bigint();
        await op(next++);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  latencies.sort((x, y) => x - y);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  return { rps: latencies.length / ((Date.now() - started) / 1000), p50: at(0.5), p99: at(0.99), n: latencies.length };
}

async function main() {
  await withBenchApi('idap', {}, async (api) => {
    const kind = api.engines.kinds.documents;
    const n = Number(process.env.BENCH_RESOURCES ?? (/ferretdb/i.test(kind) ? 2_000 : 100_000));
    const { client, triple: token } = await benchClient(api, 'Bench Leads', 'bench@bench.example');
    const cid = client.client_id;
    process.stdout.write(`seeding ${n} businesses into ${kind}...\n`);
    let t0 = Date.now();
    const seeded = await seed(cid, n);
    const seedMs = Date.now() - t0;
    const seedSeconds = seedMs / 1000;
    process.stdout.write(
      `  ${n} businesses, ${seeded.postings} postings, ${seeded.vocabulary} terms in ${seedSeconds.toFixed(1)} s ` +
        `(${Math.round(n / seedSeconds)} businesses/s)\n`,
    );
    t0 = Date.now();
    const others: ResourceType[] = ['domains', 'phones', 'emails'];
    await upsertResources(
      cid,
      others.flatMap((type) =>
        Array.from({ length: 10 }, (_, i) => ({
          type,
          naturalKey: `${type}-${i}`,
          data: { domain: `d${i}.example`, number: `+31 ${i}`, address: `a${i}@x.example` },
        })),
      ),
      createLocks(api.engines.redis).run,
    );
    process.stdout.write(`  30 more resources of 3 types through upsertResources in ${Date.now() - t0} ms\n`);

    // 70 businesses spread over the tenant and 30 of the other types: one query per type (4).
    const refs = [
      ...Array.from({ length: 70 }, (_, i) => idapRef('businesses', seeded.docs[Math.floor((i * n) / 70)]._id)),
      ...others.flatMap((type) =>
        Array.from({ length: 10 }, (_, i) => idapRef(type, resourceId(cid, type, `${type}-${i}`))),
      ),
    ];
    const byType = new Map<string, string[]>();
    for (const ref of refs) {
      const [, , type, id] = ref.split('/');
      byType.set(type, [...(byType.get(type) ?? []), id]);
    }
    const queries = [
      'golden bakery',
      'royal cafe amsterdam',
      'bakery',
      'grand bist',
      'vanberg',
      '12 high street utrecht',
      'silver mill',
      'pharm',
    ];
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const call = async (url: string, init?: RequestInit) => {
      const res = await fetch(url, { headers, ...init });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const search = (i: number) =>
      call(`${api.url}/api/v1/idap/businesses/search?q=${encodeURIComponent(queries[i % queries.length])}&limit=20`);
    const batch = () => call(`${api.url}/api/v1/idap/batch`, { method: 'POST', body: JSON.stringify({ refs }) });
    const check = (await batch()) as { results: object; errors: object };
    if (Object.keys(check.results).length !== 100)
      throw new Error(`batch found ${Object.keys(check.results).length} of 100`);

    const rows: string[][] = [];
    for (const [name, ours, raw] of [
      ['POST /idap/batch (100 refs, 4 types)', batch, () => rawBatch(cid, byType)],
      [
        `GET /idap/businesses/search (${queries.length} queries)`,
        search,
        (i: number) => rawSearch(cid, queries[i % queries.length], 20),
      ],
    ] as const) {
      process.stdout.write(`measuring ${name} (${CONCURRENCY} concurrent, ${SECONDS} s each)...\n`);
      const a = await measure(ours);
      const b = await measure(raw);
      rows.push([
        name,
        a.rps.toFixed(1),
        `${a.p50.toFixed(1)} / ${a.p99.toFixed(1)}`,
        b.rps.toFixed(1),
        `${b.p50.toFixed(1)} / ${b.p99.toFixed(1)}`,
        `${(a.p50 / b.p50).toFixed(2)}x / ${(a.p99 / b.p99).toFixed(2)}x`,
        String(a.n),
      ]);
    }
    printTable(
      ['operation', 'req/s', 'p50 / p99 ms', 'raw req/s', 'raw p50 / p99 ms', 'ratio p50 / p99', 'requests'],
      rows,
    );
    process.stdout.write(
      `\n${n} businesses; targets: search p99 < 50 ms, batch within 1.5x the raw queries. ${machine(api)}\n`,
    );
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

/**
 * search-pins on the built-in engine at BENCH_PINS pins (default 100,000), with a filter, a facet and a
 * geo sort: the in-memory index (what the API answers from) and the whole HTTP operation, side by side
 * with the raw MongoDB query the query-per-search path issues for the same body (its pushed-down filter,
 * fetched with the driver): p50/p99 latency of sequential requests and the ratio, and the index's
 * one-time load. Targets: within 1.5x of raw; p99 under 50 ms.
 *
 *   npm run bench:pins    (BENCH_PINS=100000 BENCH_ROUNDS=40 BENCH_RAW_ROUNDS=5 by default: on FerretDB
 *                          one raw query at 100,000 pins scans the collection for tens of seconds)
 */
import { randomUUID } from 'node:crypto';
import { PinModel } from '../src/pins/pin.model';
import { pinSearchFor } from '../src/pins/search';
import { builtinMongoQuery, type createBuiltinEngine } from '../src/pins/search/builtin-engine';
import { parseSearchRequest } from '../src/pins/search/search-request';
import { benchClient, machine, printTable, withBenchApi } from './support';

const PINS = Number(process.env.BENCH_PINS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const RAW_ROUNDS = Number(process.env.BENCH_RAW_ROUNDS ?? 5);
const COUNTRIES = ['NL', 'BE', 'DE', 'FR', 'ES', 'IT', 'PT', 'AT', 'DK', 'SE'];
const CATEGORIES = ['Bakery', 'Cheese', 'Bikes', 'Snacks', 'Books', 'Flowers', 'Coffee', 'Hardware'];

const BODY = {
  filter: 'country_code = NL AND business.rating >= 4.5',
  facets: ['business.category'],
  sort: ['_geoPoint(52.37, 4.89):asc'],
  limit: 20,
};

/** A deterministic pseudo-random sequence, so every run measures the same data. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

async function seed(clientId: string) {
  const random = rng(42);
  const expires = new Date(Date.now() + 365 * 86_400_000);
  for (let start = 0; start < PINS; start += 2000) {
    const batch = [];
    for (let i = start; i < Math.min(PINS, start + 2000); i++) {
      const country = COUNTRIES[i % COUNTRIES.length];
      batch.push({
        _id: `${country}:PIN-${i}`,
        country_code: country,
        name: `PIN-${i}`,
        client_id: clientId,
        brand_id: 1,
        reservation_id: randomUUID(),
        gps: { lat: 36 + random() * 20, lng: -8 + random() * 30 },
        structured_address: { address_settlement: `Town ${i % 500}` },
        business: {
          name: `Shop ${i}`,
          category: CATEGORIES[i % CATEGORIES.length],
          rating: Math.round(random() * 50) / 10,
        },
        subscription: { status: 'active', expires_at: expires },
        created_at: new Date(),
        updated_at: new Date(),
      });
    }
    await PinModel.collection.insertMany(batch as never[], { ordered: false });
    if ((start / 2000) % 10 === 0) process.stdout.write(`  ${start + batch.length} pins\n`);
  }
}

async function timed(label: string, run: () => Promise<unknown>, rounds = ROUNDS) {
  await run(); // warm up
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await run();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))];
  process.stdout.write(`  ${label}: done\n`);
  return { p50: at(50), p99: at(99) };
}

async function main() {
  await withBenchApi('pins', {}, async (api) => {
    const { client, triple } = await benchClient(api, 'Bench Pins', 'bench@pins.example', { brand: true });
    process.stdout.write(`seeding ${PINS} pins...\n`);
    const seeded = Date.now();
    await seed(client.client_id);
    process.stdout.write(
      `seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s; measuring ${ROUNDS} sequential searches each...\n`,
    );

    // The API's own engine: the HTTP rows and the engine rows share its in-memory index.
    const engine = pinSearchFor(api.infra.config, api.engines.redis) as ReturnType<typeof createBuiltinEngine>;
    const query = () => builtinMongoQuery(parseSearchRequest(BODY));
    const loading = Date.now();
    const answer = await engine.search(BODY);
    const firstSearchMs = Date.now() - loading;
    const load = engine.memory?.lastLoad;
    if (!load) throw new Error('the built-in engine did not answer from its in-memory index (is Redis reachable?)');
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    process.stdout.write(
      `in-memory index loaded: ${load.pins} pins in ${seconds(load.ms)} (first search ${seconds(firstSearchMs)})\n`,
    );
    const ours = await timed('in-memory engine', () => engine.search(BODY));
    const http = await timed('POST /agent/search-pins', async () => {
      const res = await fetch(`${api.url}/api/v1/agent/search-pins`, {
        method: 'POST',
        headers: { authorization: `Bearer ${triple}`, 'x-brand-id': '1', 'content-type': 'application/json' },
        body: JSON.stringify(BODY),
      });
      if (res.status !== 200) throw new Error(`search-pins: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    process.stdout.write(`measuring the raw MongoDB query ${RAW_ROUNDS} times...\n`);
    let fetched = 0;
    const raw = await timed(
      'raw MongoDB query',
      async () => (fetched = (await PinModel.collection.find(query()).toArray()).length),
      RAW_ROUNDS,
    );
    const f = (n: number) => n.toFixed(1);
    printTable(
      ['case', 'p50 ms', 'p99 ms', 'p50 vs raw', 'p99 vs raw'],
      [
        [`raw MongoDB query (baseline, ${RAW_ROUNDS} rounds)`, f(raw.p50), f(raw.p99), '1.00x', '1.00x'],
        [
          'in-memory engine',
          f(ours.p50),
          f(ours.p99),
          `${(ours.p50 / raw.p50).toFixed(2)}x`,
          `${(ours.p99 / raw.p99).toFixed(2)}x`,
        ],
        [
          'POST /agent/search-pins',
          f(http.p50),
          f(http.p99),
          `${(http.p50 / raw.p50).toFixed(2)}x`,
          `${(http.p99 / raw.p99).toFixed(2)}x`,
        ],
      ],
    );
    process.stdout.write(
      `\n${PINS} pins; body ${JSON.stringify(BODY)}\n` +
        `the pushed-down query fetches ${fetched} pins; the answer: ${answer.estimatedTotalHits} hits\n` +
        `in-memory index load: ${load.pins} pins in ${seconds(load.ms)} (once per API process, on its first search)\n` +
        `targets: engine within 1.5x of raw; p99 under 50 ms on MongoDB; ${machine(api)}\n`,
    );
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exitCode = 1;
});

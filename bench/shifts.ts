/**
 * The shift list and the CSV export for one client with a month of activity (200,000 events), side
 * by side with the raw MongoDB aggregation that reads the same events (same `_id` range, projection
 * and order) straight from the driver, and the same read as a plain find: median wall time of several
 * runs each, and the ratio to the faster raw read.
 *
 *   npm run bench:shifts             (BENCH_EVENTS=200000 BENCH_RUNS=5 by default)
 *
 * The API runs as `npm start` runs it (devstack engines or the configured URLs), LOG_LEVEL=warn.
 * Target: the list and the export within 1.5x of the raw aggregation.
 */
import { randomUUID } from 'node:crypto';
import { ActivityEventModel, eventIdRange } from '../src/activity/activity-event.model';
import { toEventDoc, type ActivityActor } from '../src/activity/recorder';
import { EDGE_REACH_MS } from '../src/activity/shifts';
import { benchClient, machine, printTable, withBenchApi } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ACTORS = 40;
const FROM = '2025-03-01';
const TO = '2025-03-31';
const DAY = 24 * 3600_000;

/** A month of work: each actor's events fall in two or three shifts a day with pauses of 5 to 120 s. */
async function seed(clientId: string) {
  const actors: ActivityActor[] = Array.from({ length: ACTORS }, (_, i) => ({
    id: randomUUID(),
    kind: i % 10 === 9 ? 'agent' : 'user',
    name: `worker${i}@bench.test`,
    role: i % 10 === 9 ? 'agent' : i % 4 === 0 ? 'brand_admin' : 'client_user',
  }));
  const perActorDay = Math.ceil(EVENTS / ACTORS / 31);
  let batch: ReturnType<typeof toEventDoc>[] = [];
  let written = 0;
  for (let day = 0; day < 31 && written < EVENTS; day++) {
    for (const [a, actor] of actors.entries()) {
      let t = new Date(`${FROM}T00:00:00Z`).getTime() + day * DAY + (6 + (a % 8)) * 3600_000;
      for (let i = 0; i < perActorDay && written < EVENTS; i++, written++) {
        // A long pause now and then ends a shift.
        t += i % 80 === 79 ? 45 * 60_000 : 5_000 + ((i * 7919 + a * 104729) % 115_000);
        batch.push(
          toEventDoc({
            clientId,
            actor,
            action: i % 50 === 0 ? 'publishPost' : 'updatePost',
            shipped: i % 50 === 0 ? 'posts_published' : null,
            at: new Date(t),
          }),
        );
        if (batch.length === 5000) {
          await ActivityEventModel.collection.insertMany(batch as never[], { ordered: false });
          batch = [];
          process.stdout.write(`\r  seeded ${written + 1} events`);
        }
      }
    }
  }
  if (batch.length) await ActivityEventModel.collection.insertMany(batch as never[], { ordered: false });
  process.stdout.write(`\r  seeded ${written} events\n`);
  return written;
}

async function median(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

async function main() {
  await withBenchApi('shifts', {}, async (api) => {
    const { client, triple } = await benchClient(api, 'Bench Shifts', 'bench@shifts.test');
    process.stdout.write(`seeding ${EVENTS} events over ${FROM}..${TO} for one client...\n`);
    const count = await seed(client.client_id);
    const query = `?from=${FROM}&to=${TO}`;
    const get = async (path: string) => {
      const res = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${triple}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
      return text;
    };
    const start = new Date(new Date(`${FROM}T00:00:00Z`).getTime() - EDGE_REACH_MS);
    const end = new Date(new Date(`${TO}T00:00:00Z`).getTime() + DAY + EDGE_REACH_MS);
    const raw = () =>
      ActivityEventModel.collection
        .aggregate([
          { $match: { client_id: client.client_id, _id: eventIdRange(client.client_id, start, end) } },
          { $sort: { _id: 1 } },
          { $project: { _id: 0, actor_id: 1, actor_kind: 1, actor_name: 1, role: 1, shipped: 1, at: 1 } },
        ])
        .toArray();
    // The same read as a plain find, in case the engine serves that faster than an aggregation.
    const rawFind = () =>
      ActivityEventModel.collection
        .find({ client_id: client.client_id, _id: eventIdRange(client.client_id, start, end) } as never, {
          projection: { _id: 0, actor_id: 1, actor_kind: 1, actor_name: 1, role: 1, shipped: 1, at: 1 },
        })
        .sort({ _id: 1 })
        .toArray();

    const shifts = JSON.parse(await get(`/api/v1${query}`)).total as number;
    const rawCount = (await raw()).length;
    process.stdout.write(`${shifts} shifts from ${rawCount} events; measuring ${RUNS} runs each...\n`);
    const aggregation = await median(RUNS, raw);
    const find = await median(RUNS, rawFind);
    const baseline = Math.min(aggregation, find);
    const list = await median(RUNS, () => get(`/api/v1${query}`));
    const csv = await median(RUNS, () => get(`/api/v1/export.csv${query}`));
    const row = (name: string, ms: number) => [
      name,
      ms.toFixed(0),
      baseline.toFixed(0),
      `${(ms / baseline).toFixed(2)}x`,
      ms <= baseline * 1.5 ? 'yes' : 'NO',
    ];
    printTable(
      ['operation (31 days)', 'median ms', 'raw read ms (faster of the two)', 'ratio', 'within 1.5x'],
      [
        ['raw aggregation ($match, $sort, $project)', aggregation.toFixed(0), '', '', ''],
        ['raw find (same filter, projection, sort)', find.toFixed(0), '', '', ''],
        row('GET /api/v1 (shift list)', list),
        row('GET /api/v1/export.csv', csv),
      ],
    );
    process.stdout.write(`\n${count} events, ${shifts} shifts; ${machine(api)}\n`);
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

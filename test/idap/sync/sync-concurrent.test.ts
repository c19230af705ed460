import { setTimeout as sleep } from 'node:timers/promises';
import { ResourceModel, resourceId } from '../../../src/idap/resources/resource.model';
import { seedResources } from '../../support/resources';
import { resourceWrite, writeResources } from '../../../src/idap/resources/resource-writes';
import { createClient, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { SETTLE_MS, SYNC_ENV, listPage, type Listed } from './sync-helpers';

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
function random(seed: number) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * How much older than its commit a "late" write's stamp is: a write that took this long from its stamp to its
 * acknowledgement, or a writer whose clock is this far behind. Within the budget every write keeps (1 s), so a sync
 * must not lose it; a reader without the settle lag, ordering by (modified_at, _id) alone, passes such writes by.
 */
const LATE_MS = 900;
const WRITE_FOR_MS = 5000;

describe('a sync while jobs keep writing', () => {
  let api: TestApi;
  let tenant: { client_id: string; triple: string };

  beforeAll(async () => {
    api = await startTestApi(SYNC_ENV);
    tenant = await createClient(api, await api.login(), 'Sync Race');
  });
  afterAll(() => api.stop());

  it('sees every resource at least once in its latest state, and an unchanged one never twice', async () => {
    const clientId = tenant.client_id;
    const lock = indexLock(api);
    const keys: string[] = [];
    await seedResources(
      clientId,
      Array.from({ length: 30 }, (_, n) => {
        keys.push(`s${n}`);
        return { type: 'businesses' as const, naturalKey: `s${n}`, data: { name: `S${n}`, v: 0 } };
      }),
      lock,
    );
    // Resources that are only ever written again as they are (by a job finding them again, by an upsert of the same
    // data): nothing a reader sees of them changes, so a sync must list each exactly once.
    const idle = Array.from({ length: 10 }, (_, n) => `i${n}`);
    await seedResources(
      clientId,
      idle.map((key) => ({ type: 'businesses' as const, naturalKey: key, data: { name: key, v: 0 } })),
      lock,
    );
    const counts: Record<string, number> = {};
    let version = 0;
    let writersDone = false;
    let writersEndedAt = 0;

    /** One writer process: new resources, changed data, the jobs' write path, flags over HTTP, late and idle writes. */
    const writer = async (seed: number) => {
      const rnd = random(seed);
      const pick = () => keys[Math.floor(rnd() * keys.length)];
      const pickIdle = () => idle[Math.floor(rnd() * idle.length)];
      const end = Date.now() + WRITE_FOR_MS;
      while (Date.now() < end) {
        const action = Math.floor(rnd() * 6);
        counts[action] = (counts[action] ?? 0) + 1;
        if (action === 0) {
          const key = `w${seed}-${++version}`;
          await seedResources(clientId, [{ type: 'businesses', naturalKey: key, data: { name: key, v: 0 } }], lock);
          keys.push(key);
          idOf(key);
        } else if (action === 1) {
          await seedResources(clientId, [{ type: 'businesses', naturalKey: pick(), data: { v: ++version } }], lock);
        } else if (action === 2) {
          // A job run: some businesses found again as they are (no change), one with news, one new.
          const again = await ResourceModel.find({
            client_id: clientId,
            _id: { $in: [pickIdle(), pick()].map(idOf) },
          }).lean<{ _id: string; data: Record<string, unknown> }[]>();
          const jobId = `job-${seed}-${version}`;
          const fresh = `j${seed}-${++version}`;
          await writeResources([
            ...again.map((d) => resourceWrite(clientId, 'businesses', keyOf(d._id), d.data, { jobId })),
            resourceWrite(clientId, 'businesses', pick(), { phone: `+31 ${++version}` }, { jobId }),
            resourceWrite(clientId, 'businesses', fresh, { name: fresh, v: 0 }, { jobId }),
          ]);
          keys.push(fresh);
          idOf(fresh);
        } else if (action === 3) {
          const flag = rnd() < 0.5 ? 'qualified' : 'rejected';
          const res = await api.call('PATCH', `/api/v1/idap/businesses/${idOf(pick())}/flags`, {
            token: tenant.triple,
            body: { add: [flag] },
          });
          if (res.status !== 200) throw new Error(`flag: ${res.status} ${JSON.stringify(res.body)}`);
        } else if (action === 4) {
          await ResourceModel.updateOne(
            { _id: idOf(pick()), client_id: clientId },
            { $set: { 'data.v': ++version }, $max: { modified_at: new Date(Date.now() - LATE_MS) } },
            { timestamps: false },
          );
        } else {
          // Written again exactly as it is: nothing a reader sees changes.
          const doc = await ResourceModel.findOne({ _id: idOf(pickIdle()), client_id: clientId }).lean<{
            _id: string;
            data: Record<string, unknown>;
          }>();
          await seedResources(clientId, [{ type: 'businesses', naturalKey: keyOf(doc!._id), data: doc!.data }], lock);
        }
        await sleep(rnd() * 20);
      }
    };
    const byId = new Map<string, string>();
    const idOf = (key: string) => {
      const id = resourceId(clientId, 'businesses', key);
      byId.set(id, key);
      return id;
    };
    const keyOf = (id: string) => byId.get(id)!;
    [...keys, ...idle].forEach(idOf);

    /** The consumer: follows the cursor page by page, and past the end polls it until the writers are settled. */
    const sightings = new Map<string, Listed[]>();
    let pages = 0;
    const reader = async () => {
      let cursor: string | undefined;
      for (;;) {
        const askedAt = Date.now();
        const page = await listPage(api, tenant.triple, 'businesses', { limit: '7', ...(cursor ? { cursor } : {}) });
        pages++;
        for (const item of page.items)
          sightings.set(item.resource_id, [...(sightings.get(item.resource_id) ?? []), item]);
        cursor = page.next_cursor;
        if (page.has_more) continue;
        if (writersDone && askedAt > writersEndedAt + SETTLE_MS + 200) return;
        await sleep(50);
      }
    };

    const writing = Promise.all([writer(1), writer(2), writer(3)]).then(() => {
      writersDone = true;
      writersEndedAt = Date.now();
    });
    await Promise.all([writing, reader()]);

    // Something of every kind was written while the reader read, over many pages.
    expect(Object.keys(counts).sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(pages).toBeGreaterThan(20);

    const stored = await ResourceModel.find({ client_id: clientId, resource_type: 'businesses' }).lean<
      { _id: string; data: Record<string, unknown>; flags: string[]; modified_at: Date }[]
    >();
    expect(stored.length).toBe(new Set([...keys, ...idle]).size);
    // At least once, in the latest state: the last sighting of each resource is what is stored now.
    const stale = stored.filter((doc) => {
      const last = sightings.get(doc._id)?.at(-1);
      return (
        !last ||
        last.modified_at !== doc.modified_at.toISOString() ||
        JSON.stringify(sorted(last.data)) !== JSON.stringify(sorted(doc.data)) ||
        last.flags.join() !== doc.flags.join()
      );
    });
    expect(stale.map((d) => byId.get(d._id))).toEqual([]);
    // Never twice unchanged: a resource seen again had moved on (a change during the sync) each time.
    const repeatedUnchanged = [...sightings].filter(([, seen]) =>
      seen.some((s, i) => i > 0 && Date.parse(s.modified_at) <= Date.parse(seen[i - 1].modified_at)),
    );
    expect(repeatedUnchanged.map(([id]) => byId.get(id))).toEqual([]);
    expect(idle.map((key) => [key, sightings.get(idOf(key))?.length])).toEqual(idle.map((key) => [key, 1]));
    // And resources changed during the sync did come again (the test saw the race it is about).
    expect([...sightings.values()].filter((seen) => seen.length > 1).length).toBeGreaterThan(0);
  });
});

/** An object with its keys in order at every level (the engine may store them in another order). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}

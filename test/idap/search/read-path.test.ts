import { MockActivityEnvironment } from '@temporalio/testing';
import { createClient, eventually, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { startSecondApi } from '../../support/second-api';
import { averageLength, saturation } from '../../../src/idap/search/bm25';
import { newSearchTrace } from '../../../src/idap/search/search-trace';
import { parseQuery, prepareQuery, rankAll } from '../../../src/idap/search/ranking';
import { ResourceModel, idapRef, resourceId } from '../../../src/idap/resources/resource.model';
import { seedResources } from '../../support/resources';
import {
  DocTermsModel,
  TermDfModel,
  TermModel,
  TermStatsModel,
  dfId,
  readStats,
  statsId,
} from '../../../src/idap/search/search-index.model';
import { SEARCH_FIELDS } from '../../../src/idap/search/text';
import { POSTINGS_BUDGET } from '../../../src/idap/search/top-k';
import { rerankWorkflowId } from '../../../src/idap/idap.workflows';
import { LEAD_CLIENT_ID } from '../../../workflows/search-attributes';

const FIRST = ['Golden', 'Royal', 'Green', 'Old', 'Grand', 'Silver', 'Little'];
const SECOND = ['Bakery', 'Cafe', 'Mill', 'Bistro', 'Garden', 'Market', 'Diner', 'Deli', 'Forge', 'Salon', 'Tavern'];
const CATEGORIES = ['Bakery', 'Cafe', 'Restaurant', 'Bar', 'Hotel'];
const STREETS = ['High Street', 'Mill Lane', 'Market Square', 'Station Road', 'Church Street', 'Garden Walk'];
const CITIES = ['Utrecht', 'Leiden', 'Delft', 'Gouda'];

/** Names of two to four words (so field lengths, and with them impacts, differ), with many shared words. */
function business(i: number) {
  const extra = i % 3 === 0 ? '' : ` ${['and Sons', 'Express', 'de Zon'][(i % 5) % 3]}`;
  return {
    type: 'businesses' as const,
    naturalKey: `place-${i}`,
    data: {
      name: `${FIRST[i % FIRST.length]} ${SECOND[(i * 3) % SECOND.length]}${extra}`,
      category: CATEGORIES[(i * 7) % CATEGORIES.length],
      address: `${(i % 40) + 1} ${STREETS[(i * 5) % STREETS.length]}, ${CITIES[i % CITIES.length]}`,
    },
    flags: i % 13 === 0 ? ['rejected'] : ['new'],
  };
}
const N = 420;
const QUERIES = [
  'golden bakery',
  'royal cafe utrecht',
  'mill',
  'grand bis',
  'street',
  'old market square leiden',
  'caf',
];

/**
 * The read path (src/idap/top-k.ts, index-reads.ts): it stops reading postings early, yet answers what ranking
 * every resource would; its per-process cache never answers from before a write, in any process.
 */
describe('the IDAP search read path', () => {
  let api: TestApi;
  let a: { client_id: string; triple: string };
  const search = (token: string, q: string, limit = 10, base?: string) =>
    base
      ? fetch(`${base}/api/v1/idap/businesses/search?${new URLSearchParams({ q, limit: String(limit) })}`, {
          headers: { authorization: `Bearer ${token}` },
        }).then(async (r) => ({ status: r.status, body: await r.json() }))
      : api.call('GET', `/api/v1/idap/businesses/search?${new URLSearchParams({ q, limit: String(limit) })}`, {
          token,
        });
  const ids = (body: { items: { resource_id: string }[] }) => body.items.map((i) => i.resource_id);

  /** What ranking every resource with a query term answers: all its postings read, the rejected left out. */
  async function exhaustive(clientId: string, q: string, limit: number) {
    const scope = { client_id: clientId, resource_type: 'businesses' as const };
    const parsed = parseQuery(q);
    const vocabulary = await TermDfModel.find(scope).lean<{ term: string; df: number }[]>();
    const df = new Map(vocabulary.map((v) => [v.term, v.df]));
    const completions = parsed.prefix
      ? vocabulary
          .filter((v) => v.term.startsWith(parsed.prefix!) && v.term !== parsed.prefix)
          .sort((x, y) => (x.term < y.term ? -1 : 1))
      : [];
    const query = prepareQuery('businesses', parsed, completions, df, await readStats(clientId, 'businesses'));
    const rows = await TermModel.find({ ...scope, term: { $in: query.terms } }).lean();
    const rejected = new Set(
      (await ResourceModel.find({ ...scope, flags: 'rejected' }, { _id: 1 }).lean()).map((d) => String(d._id)),
    );
    return rankAll(query, rows as never)
      .filter((r) => !rejected.has(r.id))
      .slice(0, limit);
  }

  beforeAll(async () => {
    api = await startTestApi();
    a = await createClient(api, await api.login(), 'Read Path');
    await seedResources(
      a.client_id,
      Array.from({ length: N }, (_, i) => business(i)),
      indexLock(api),
    );
  });
  afterAll(() => api.stop());

  it('answers the exhaustive ranking’s top k, reading fewer postings than match', async () => {
    for (const q of QUERIES) {
      for (const limit of [1, 10, 25]) {
        const trace = newSearchTrace();
        const ours = await api.rt.modules.idap.service.search(a.client_id, 'businesses', { q, limit }, trace);
        const expected = await exhaustive(a.client_id, q, limit);
        expect({ q, limit, ids: ours.items.map((i) => i.resource_id) }).toEqual({
          q,
          limit,
          ids: expected.map((r) => r.id),
        });
        expect(ours.items.map((i) => i.score)).toEqual(expected.map((r) => Math.round(r.score * 1e4) / 1e4));
        expect(trace.postings).toBeLessThanOrEqual(POSTINGS_BUDGET);
      }
    }
    // "street" is in a third of the addresses, each a posting: the best 5 are known after one block of them.
    const trace = newSearchTrace();
    await api.rt.modules.idap.service.search(a.client_id, 'businesses', { q: 'street ', limit: 5 }, trace);
    const matching = await TermModel.countDocuments({
      client_id: a.client_id,
      resource_type: 'businesses',
      term: 'street',
    });
    expect(matching).toBeGreaterThan(100);
    expect(trace.postings).toBeLessThan(matching / 2);
  });

  it('answers from its cache, and never from before a write, in this process or another', async () => {
    const other = await startSecondApi(api);
    try {
      // Warm in both processes: the word is not in the index (that too is cached), the resource as it was. (A
      // process caches once its subscription is in place: until its first search has made it, nothing is kept.)
      for (const base of [undefined, other.url]) {
        await eventually(async () => ((await search(a.triple, 'zebra', 10, base)).body.count === 0 ? true : undefined));
      }
      await eventually(async () => {
        const warm = newSearchTrace();
        await api.rt.modules.idap.service.search(a.client_id, 'businesses', { q: 'zebra', limit: 10 }, warm);
        return warm.fromDatabase === 0 || undefined;
      });
      const trace = newSearchTrace();
      await api.rt.modules.idap.service.search(a.client_id, 'businesses', { q: 'zebra', limit: 10 }, trace);
      expect(trace.fromDatabase).toBe(0);
      const ref = idapRef('businesses', resourceId(a.client_id, 'businesses', 'place-1'));
      const before = await fetch(`${other.url}/api/v1/idap/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.triple}`, 'content-type': 'application/json' },
        body: JSON.stringify({ refs: [ref] }),
      }).then((r) => r.json() as Promise<any>);
      expect(before.results[ref].data.name).not.toBe('Zebra Crossing Cafe');

      // Written in this process: answered (by writeResources) only once every process has dropped what it held.
      await seedResources(
        a.client_id,
        [{ type: 'businesses', naturalKey: 'place-1', data: { name: 'Zebra Crossing Cafe' } }],
        indexLock(api),
      );
      for (const base of [undefined, other.url]) {
        expect(
          (await search(a.triple, 'zebra', 10, base)).body.items.map((i: { data: { name: string } }) => i.data.name),
        ).toEqual(['Zebra Crossing Cafe']);
      }
      const after = await fetch(`${other.url}/api/v1/idap/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.triple}`, 'content-type': 'application/json' },
        body: JSON.stringify({ refs: [ref] }),
      }).then((r) => r.json() as Promise<any>);
      expect(after.results[ref].data.name).toBe('Zebra Crossing Cafe');
      // What the write did not touch stays cached: of `golden bakery`, only the type's statistics are read again.
      await search(a.triple, 'golden bakery');
      await seedResources(
        a.client_id,
        [{ type: 'businesses', naturalKey: 'place-1', data: { name: 'Zebra Crossing Diner' } }],
        indexLock(api),
      );
      const untouched = newSearchTrace();
      await api.rt.modules.idap.service.search(a.client_id, 'businesses', { q: 'golden bakery', limit: 10 }, untouched);
      expect(untouched.fromDatabase).toBe(1);
      expect(ids((await search(a.triple, 'golden bakery', 10, other.url)).body)).toEqual(
        (await exhaustive(a.client_id, 'golden bakery', 10)).map((r) => r.id),
      );
    } finally {
      other.stop();
    }
  });

  /** A tenant with `n` businesses indexed as version 1 wrote them: per field its own weight, ranked to 1e-4. */
  async function layoutOneIndex(name: string, n: number) {
    const b = await createClient(api, await api.login(), name);
    await seedResources(
      b.client_id,
      Array.from({ length: n }, (_, i) => business(i)),
      indexLock(api),
    );
    const scope = { client_id: b.client_id, resource_type: 'businesses' as const };
    const stats = await readStats(b.client_id, 'businesses');
    const fieldImpact = (p: { field: string; tf: number; len: number }) =>
      SEARCH_FIELDS.businesses[p.field] * saturation(p.tf, p.len, averageLength(stats, p.field) || p.len);
    const oldId = (p: { term: string; field: string; resource_id: string; impact: number }) =>
      `${dfId(b.client_id, 'businesses', p.term)}|${String(999_999 - Math.round(p.impact * 10_000)).padStart(6, '0')}` +
      `|${p.resource_id}|${p.field}`;
    const rows =
      await TermModel.find(scope).lean<
        { term: string; field: string; resource_id: string; tf: number; len: number; pos: number[] }[]
      >();
    await TermModel.deleteMany(scope);
    const v1 = rows.map(({ term, field, resource_id, tf, len, pos }) => ({
      term,
      field,
      resource_id,
      tf,
      len,
      pos,
      impact: fieldImpact({ field, tf, len }),
    }));
    await TermModel.insertMany(v1.map((p) => ({ _id: oldId(p), ...scope, ...p })));
    for (const doc of await DocTermsModel.find(scope).lean<
      { _id: string; postings: { field: string; tf: number; len: number; impact: number }[] }[]
    >()) {
      await DocTermsModel.updateOne(
        { _id: doc._id, ...scope },
        { $set: { postings: doc.postings.map((p) => ({ ...p, impact: fieldImpact(p) })) }, $unset: { layout: 1 } },
      );
    }
    await TermStatsModel.updateOne({ _id: statsId(b.client_id, 'businesses'), ...scope }, { $unset: { layout: 1 } });
    return { b, scope, rows, v1 };
  }

  it('searches an index ranked the way of before (each field on its own), and re-ranks it on first use', async () => {
    const { b, scope, rows, v1 } = await layoutOneIndex('Old Layout', 300);
    api.rt.modules.idap.reads.clear();
    // The runs carry the search attributes once the service has registered them.
    await eventually(async () => (api.rt.engines.searchAttributes.ready ? true : undefined));

    // Searched as it is: the same answer, read without stopping early (every posting of the term).
    const mills = await TermModel.countDocuments({ ...scope, term: 'mill' });
    const before = newSearchTrace();
    const first = await api.rt.modules.idap.service.search(b.client_id, 'businesses', { q: 'mill', limit: 3 }, before);
    expect(first.items.map((i) => i.resource_id)).toEqual((await exhaustive(b.client_id, 'mill', 3)).map((r) => r.id));
    expect(before.candidates).toBe(new Set(v1.filter((p) => p.term === 'mill').map((p) => p.resource_id)).size);
    expect(before.postings).toBe(before.candidates);
    expect(mills).toBeGreaterThan(before.postings);
    // The first search started the re-ranking as a workflow, on the bulk queue, found by its id and the tenant's
    // search attribute; it ranked every posting anew and recorded the layout; answers are unchanged.
    const run = api.rt.engines.temporal.workflow.getHandle(rerankWorkflowId(b.client_id, 'businesses'));
    const started = await eventually(() => run.describe(), 20_000, 100, 'the re-rank workflow started');
    expect(started.taskQueue).toBe(api.config.bulkTaskQueue);
    expect(started.typedSearchAttributes.get(LEAD_CLIENT_ID)).toBe(b.client_id);
    expect(await run.result()).toEqual({ resources: 300 });
    expect((await TermStatsModel.findOne({ _id: statsId(b.client_id, 'businesses'), ...scope }).lean())?.layout).toBe(
      2,
    );
    const ranks = (await TermModel.find(scope, { _id: 1 }).lean()).map((p) => String(p._id).split('|')[3]);
    expect(ranks.length).toBe(rows.length);
    expect(ranks.every((r) => r.length === 10)).toBe(true);
    for (const q of ['golden bakery', 'mill', 'grand bis']) {
      expect({ q, ids: ids((await search(b.triple, q, 10)).body) }).toEqual({
        q,
        ids: (await exhaustive(b.client_id, q, 10)).map((r) => r.id),
      });
    }
    const trace = newSearchTrace();
    const after = await api.rt.modules.idap.service.search(b.client_id, 'businesses', { q: 'mill', limit: 3 }, trace);
    expect(after.items).toEqual(first.items);
    expect(trace.postings).toBeLessThan(before.postings);
  });

  it('resumes an interrupted re-rank after the last resource its heartbeat recorded; stops if cancelled', async () => {
    const { b, scope } = await layoutOneIndex('Resumed Rerank', 300);
    const ids = (await DocTermsModel.find(scope, { _id: 1 }).lean()).map((d) => String(d._id)).sort();
    const layouts = async () =>
      new Map((await DocTermsModel.find(scope, { layout: 1 }).lean()).map((d) => [String(d._id), d.layout ?? 1]));
    const { rerankSearchIndex } = api.rt.modules.idap.activities;
    const input = { client_id: b.client_id, resource_type: 'businesses' } as const;

    // Cancelled (its worker stopping) at its first heartbeat: it stops after that step, the layout not recorded.
    const cancelled = new MockActivityEnvironment({ heartbeatDetails: { after: ids[149] } });
    const beats: { after: string; done: number; of: number }[] = [];
    cancelled.on('heartbeat', (d) => {
      // The keep-alive repeats the details it started from until the first step's own.
      if (d?.done === undefined || beats.length) return;
      beats.push(d);
      cancelled.cancel();
    });
    await expect(cancelled.run(rerankSearchIndex, input)).rejects.toThrow();
    expect(beats[0]).toEqual({ after: ids[249], done: 250, of: 300 });
    let now = await layouts();
    expect(ids.map((id) => now.get(id))).toEqual([...Array(150).fill(1), ...Array(100).fill(2), ...Array(50).fill(1)]);
    expect((await TermStatsModel.findOne({ _id: statsId(b.client_id, 'businesses'), ...scope }).lean())?.layout).toBe(
      undefined,
    );

    // Retried from that heartbeat: the rest, then the layout.
    const retried = new MockActivityEnvironment({ heartbeatDetails: beats[0] });
    expect(await retried.run(rerankSearchIndex, input)).toEqual({ resources: 300 });
    now = await layouts();
    expect(ids.map((id) => now.get(id))).toEqual([...Array(150).fill(1), ...Array(150).fill(2)]);
    expect((await TermStatsModel.findOne({ _id: statsId(b.client_id, 'businesses'), ...scope }).lean())?.layout).toBe(
      2,
    );
  });

  it('re-ranks an index in one run however many times it is asked while that run goes on', async () => {
    const c = await createClient(api, await api.login(), 'Rerank Once');
    await seedResources(
      c.client_id,
      Array.from({ length: 200 }, (_, i) => business(i)),
      indexLock(api),
    );
    const postings = await TermModel.find({ client_id: c.client_id }, { _id: 1 }).sort({ _id: 1 }).lean();
    const { workflows } = api.rt.modules.idap;
    const first = await workflows.rerank(c.client_id, 'businesses');
    const second = await workflows.rerank(c.client_id, 'businesses');
    expect(first.workflowId).toBe(rerankWorkflowId(c.client_id, 'businesses'));
    expect(first.runId).toEqual(expect.any(String));
    if (second.runId !== first.runId) {
      // Only a run that had closed already (200 resources re-read and found ranked: rarely that quick) frees the id.
      const closed = await api.rt.engines.temporal.workflow.getHandle(first.workflowId, first.runId).describe();
      const next = await api.rt.engines.temporal.workflow.getHandle(first.workflowId, second.runId).describe();
      expect(closed.closeTime!.getTime()).toBeLessThanOrEqual(next.startTime.getTime());
    }
    // An index already in layout 2 re-ranks to the same postings.
    expect(await api.rt.engines.temporal.workflow.getHandle(first.workflowId, second.runId).result()).toEqual({
      resources: 200,
    });
    expect(await TermModel.find({ client_id: c.client_id }, { _id: 1 }).sort({ _id: 1 }).lean()).toEqual(postings);
  });
});

import mongoose from 'mongoose';
import { createClient, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { ResourceModel, resourceId, type ResourceType } from '../../../src/idap/resources/resource.model';
import { resourceWrite, writeResources } from '../../../src/idap/resources/resource-writes';
import { indexResources } from '../../../src/idap/search/index-maintenance';
import { seedResources } from '../../support/resources';
import {
  DocTermsModel,
  TermDfModel,
  TermModel,
  postingId,
  readStats,
} from '../../../src/idap/search/search-index.model';

/** The search index follows the stored resources exactly, however often a write is repeated. */
describe('the IDAP search index', () => {
  let api: TestApi;
  let clientId: string;
  const scope = () => ({ client_id: clientId, resource_type: 'businesses' as const });
  const df = async () => Object.fromEntries((await TermDfModel.find(scope()).lean()).map((d) => [d.term, d.df]));

  beforeAll(async () => {
    api = await startTestApi();
    clientId = (await createClient(api, await api.login(), 'Index Co')).client_id;
  });
  afterAll(() => api.stop());

  it("stores a term's postings in best-first order of _id, which is what a search reads and cuts off", async () => {
    const impacts = [0.2, 5.1, 1.7, 0, 3.3349, 3.335];
    const ids = impacts.map((impact, i) => ({
      impact,
      id: postingId('c1', 'businesses', { term: 'cafe', impact, resource_id: `r${i}`, field: 'name' }),
    }));
    expect(ids.sort((a, b) => (a.id < b.id ? -1 : 1)).map((p) => p.impact)).toEqual([5.1, 3.335, 3.3349, 1.7, 0.2, 0]);
    expect(ids.every((p) => p.id.startsWith('c1|businesses|cafe|'))).toBe(true);
  });

  it('keeps frequencies, field lengths and postings in step with the data; a repeat changes nothing', async () => {
    const items = [
      {
        type: 'businesses' as const,
        naturalKey: 'a',
        data: { name: 'Green Mill', category: 'Bakery', address: '1 Mill Lane' },
      },
      { type: 'businesses' as const, naturalKey: 'b', data: { name: 'Green Door', category: 'Bar' } },
    ];
    await seedResources(clientId, items, indexLock(api));
    const first = await df();
    expect(first).toMatchObject({ green: 2, mill: 1, door: 1, bakery: 1, bar: 1, lane: 1 });
    expect(await readStats(clientId, 'businesses')).toEqual({ docs: 2, lengths: { name: 4, category: 2, address: 3 } });
    const postings = await TermModel.find(scope()).lean();
    // "mill" is in a's name and address: one posting per field.
    expect(
      postings
        .filter((p) => p.term === 'mill')
        .map((p) => [p.field, p.pos, p.len])
        .sort(),
    ).toEqual([
      ['address', [1], 3],
      ['name', [1], 2],
    ]);

    await seedResources(clientId, items, indexLock(api));
    await indexResources(
      clientId,
      [{ type: 'businesses', id: resourceId(clientId, 'businesses', 'a') }],
      indexLock(api),
    );
    expect(await df()).toEqual(first);
    expect((await TermModel.find(scope()).lean()).map((p) => String(p._id)).sort()).toEqual(
      postings.map((p) => String(p._id)).sort(),
    );

    // A rename moves the counts; a term no resource has any more leaves the vocabulary.
    await seedResources(
      clientId,
      [{ type: 'businesses', naturalKey: 'b', data: { name: 'Blue Door Tavern' } }],
      indexLock(api),
    );
    expect(await df()).toMatchObject({ green: 1, blue: 1, door: 1, tavern: 1 });
    expect((await df()).bar).toBe(1);
    expect(await readStats(clientId, 'businesses')).toEqual({ docs: 2, lengths: { name: 5, category: 2, address: 3 } });

    // A resource gone from the store leaves the index when re-indexed.
    await ResourceModel.deleteOne({ client_id: clientId, _id: resourceId(clientId, 'businesses', 'b') });
    await indexResources(
      clientId,
      [{ type: 'businesses', id: resourceId(clientId, 'businesses', 'b') }],
      indexLock(api),
    );
    expect(await df()).toEqual({ green: 1, mill: 1, bakery: 1, '1': 1, lane: 1 });
    expect(await readStats(clientId, 'businesses')).toEqual({ docs: 1, lengths: { name: 2, category: 1, address: 3 } });
  });

  it('counts a resource once when several writers index it at once, each posting kept once', async () => {
    const id = resourceId(clientId, 'businesses', 'race');
    await ResourceModel.create({
      _id: id,
      client_id: clientId,
      resource_type: 'businesses',
      data: { name: 'Race Track Diner' },
    });
    const statsBefore = await readStats(clientId, 'businesses');
    // Three locks over one Redis, as three worker processes would have.
    const locks = [indexLock(api), indexLock(api), indexLock(api)];
    await Promise.all(locks.map((lock) => indexResources(clientId, [{ type: 'businesses', id }], lock)));
    const rows = await TermModel.find({ ...scope(), resource_id: id }).lean();
    expect(rows.map((r) => r.term).sort()).toEqual(['diner', 'race', 'track']);
    expect(await df()).toMatchObject({ race: 1, track: 1, diner: 1 });
    expect((await readStats(clientId, 'businesses')).docs).toBe(statsBefore.docs + 1);
  });

  it('indexes several types in one step as steps over each type would, in the statements of one type', async () => {
    // What a job stores: businesses, their domains and phones, written without indexing (as a job writes them).
    const stored = (tenant: string) => [
      resourceWrite(tenant, 'businesses', 'p1', { name: 'Harbour Bakery', category: 'Bakery' }, { jobId: 'j1' }),
      resourceWrite(tenant, 'businesses', 'p2', { name: 'Quay Coffee', category: 'Cafe' }, { jobId: 'j1' }),
      resourceWrite(tenant, 'domains', 'harbour.example', { domain: 'harbour.example' }, { jobId: 'j1' }),
      resourceWrite(tenant, 'phones', '+31301234567', { number: '+31 30 123 4567' }, { jobId: 'j1' }),
    ];
    const [merged, apart] = [
      (await createClient(api, await api.login(), 'Index Merged')).client_id,
      (await createClient(api, await api.login(), 'Index Apart')).client_id,
    ];
    for (const tenant of [merged, apart]) await writeResources(stored(tenant));
    const refs = (tenant: string) => stored(tenant).map((w) => ({ type: w.type, id: w.id }));
    // The statements each indexing sends to the document engine (mongoose's debug hook sees every one).
    const statements: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => void statements.push(`${method} ${collection}`));
    const counted = async (work: () => Promise<unknown>) => {
      statements.length = 0;
      await work();
      return statements.length;
    };
    try {
      const oneStep = await counted(() => indexResources(merged, refs(merged), indexLock(api)));
      const perType = new Map<ResourceType, number>();
      for (const type of ['businesses', 'domains', 'phones'] as const) {
        const ofType = refs(apart).filter((r) => r.type === type);
        perType.set(type, await counted(() => indexResources(apart, ofType, indexLock(api))));
      }
      // Three types cost what the businesses alone cost: each kind of row is one statement for every type.
      expect(oneStep).toBeLessThanOrEqual(perType.get('businesses')!);
      expect(oneStep).toBeLessThan([...perType.values()].reduce((a, b) => a + b, 0));
    } finally {
      mongoose.set('debug', false);
    }
    // Both tenants' indexes hold the same: frequencies, statistics, postings and forward entries, type by type.
    const indexOf = async (tenant: string) => {
      const byType: Record<string, unknown> = {};
      for (const type of ['businesses', 'domains', 'phones'] as const) {
        const where = { client_id: tenant, resource_type: type };
        const naturalKeyOf = new Map(
          stored(tenant).map((w) => [w.id, `${w.type}/${w.data.name ?? w.data.domain ?? w.data.number}`]),
        );
        byType[type] = {
          df: Object.fromEntries((await TermDfModel.find(where).lean()).map((d) => [d.term, d.df])),
          stats: await readStats(tenant, type),
          postings: (await TermModel.find(where).lean())
            .map((r) => `${r.term} ${r.field} ${r.impact} ${naturalKeyOf.get(r.resource_id)}`)
            .sort(),
          entries: (await DocTermsModel.find(where).lean()).map((d) => naturalKeyOf.get(d._id)).sort(),
        };
      }
      return byType;
    };
    const expected = await indexOf(apart);
    expect(await indexOf(merged)).toEqual(expected);
    expect((expected.domains as { entries: string[] }).entries).toEqual(['domains/harbour.example']);
    // A repeat of the step over all three types finds nothing to write.
    statements.length = 0;
    mongoose.set('debug', (collection: string, method: string) => void statements.push(`${method} ${collection}`));
    try {
      await indexResources(merged, refs(merged), indexLock(api));
      expect(statements.filter((s) => !/^find /.test(s))).toEqual([]);
    } finally {
      mongoose.set('debug', false);
    }
  });

  it('a later write sets data field by field (null never), keeps the flags a user gave, and only adds to related and source jobs', async () => {
    const rel = 'idap://phones/1c5e9a3f-7b2d-4e6a-8f0c-4d2b6e8a0c51';
    const { ids } = await seedResources(
      clientId,
      [
        {
          type: 'domains',
          naturalKey: 'x.example',
          data: { domain: 'x.example', title: null },
          related: [rel],
          sourceJobId: 'j1',
          flags: ['qualified'],
        },
      ],
      indexLock(api),
    );
    await seedResources(
      clientId,
      [{ type: 'domains', naturalKey: 'X.example ', data: { title: 'X', domain: null }, sourceJobId: 'j2' }],
      indexLock(api),
    );
    const doc = await ResourceModel.findOne({ client_id: clientId, _id: ids[0] }).lean();
    expect(doc).toMatchObject({
      data: { domain: 'x.example', title: 'X' },
      flags: ['qualified'],
      related: [rel],
      source_job_ids: ['j1', 'j2'],
    });
  });
});

import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId, type Filter } from 'mongodb';

/**
 * What the service relies on from its document engine, checked on the one the devstack gives
 * (FerretDB here, MongoDB when MONGODB_URI points at one).
 */
describe('document engine', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await MongoClient.connect(process.env.MONGODB_URI!, { serverSelectionTimeoutMS: 3000 });
  });
  afterAll(() => client.close());

  // Job writes and the search index send bulks of hundreds of updates; FerretDB 1.24 as released hangs for good on
  // one of 100+ statements that match (tools/devstack/ferretdb/patches/0001-update-connection-leak.patch).
  it('applies one bulk of 250 updates that all match, and another right after it', async () => {
    const docs = client.db(`engine_${randomBytes(3).toString('hex')}`).collection<{ _id: string; n: number }>('docs');
    await docs.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: `d${i}`, n: 0 })));
    const bump = () =>
      docs.bulkWrite(
        Array.from({ length: 250 }, (_, i) => ({
          updateOne: { filter: { _id: `d${i}` }, update: { $inc: { n: 1 } }, upsert: true },
        })),
        { ordered: false },
      );
    expect((await bump()).modifiedCount).toBe(250);
    expect((await bump()).modifiedCount).toBe(250);
    expect(await docs.countDocuments({ n: 2 })).toBe(250);
  }, 30_000);

  // The devstack's FerretDB answers these from its _id index (patches 0002 and 0003); the
  // rest of the filter must still apply in full.
  it('answers filters that pin _id, alone or with other conditions, exactly', async () => {
    const db = client.db(`engine_${randomBytes(3).toString('hex')}`);
    // _id of mixed types on purpose: a string, an ObjectId and a number.
    const docs = db.collection<{ _id: any; tenant: string; n: number }>('docs');
    const oid = new ObjectId();
    await docs.insertMany([
      { _id: 'a', tenant: 't1', n: 1 },
      { _id: 'b', tenant: 't2', n: 2 },
      { _id: 'c', tenant: 't1', n: 3 },
      { _id: oid, tenant: 't1', n: 4 },
      { _id: 5, tenant: 't1', n: 5 },
    ]);
    const ids = async (filter: object) => (await docs.find(filter).sort({ n: 1 }).toArray()).map((d) => d.n);
    expect(await ids({ _id: 'a', tenant: 't1' })).toEqual([1]);
    expect(await ids({ _id: 'b', tenant: 't1' })).toEqual([]);
    expect(await ids({ _id: { $in: ['a', 'b', 'c', 'zz'] }, tenant: 't1' })).toEqual([1, 3]);
    expect(await ids({ _id: { $in: ['b', oid, 5] } })).toEqual([2, 4, 5]);
    expect(await ids({ _id: { $in: [] } })).toEqual([]);
    expect(await ids({ _id: { $in: ['a', 'c'], $nin: ['c'] } })).toEqual([1]);
    expect((await docs.updateOne({ _id: 'b', tenant: 't1' } as Filter<any>, { $set: { n: 20 } })).matchedCount).toBe(0);
    expect((await docs.deleteMany({ _id: { $in: ['a', 'b'] }, tenant: 't2' } as Filter<any>)).deletedCount).toBe(1);
    expect(await ids({})).toEqual([1, 3, 4, 5]);
  });

  // Ranges of string _ids are read from the index too (patch 0003's range); JSON escapes
  // (space, quotes, <, non-ASCII) must not move a document out of its range.
  it('answers string ranges on _id exactly, whatever characters the ids hold', async () => {
    const db = client.db(`engine_${randomBytes(3).toString('hex')}`);
    const docs = db.collection<{ _id: any; n: number }>('docs');
    const ids = [
      't|a',
      't|a b',
      't|a"q',
      't|a<b',
      't|a&b',
      't|a\\b',
      't|aé',
      't|a\u2028',
      't|ab',
      't|b',
      't|',
      't',
      'u|a',
      's|z',
    ];
    await docs.insertMany([...ids.map((_id, n) => ({ _id, n })), { _id: 7, n: 100 }, { _id: new ObjectId(), n: 101 }]);
    const found = async (filter: object) => (await docs.find(filter as Filter<any>).toArray()).map((d) => d._id).sort();
    const expected = (keep: (id: string) => boolean) => ids.filter(keep).sort();
    expect(await found({ _id: { $gte: 't|a', $lt: 't|a\uffff' } })).toEqual(expected((id) => id.startsWith('t|a')));
    expect(await found({ _id: { $gt: 't|a', $lte: 't|b' } })).toEqual(expected((id) => id > 't|a' && id <= 't|b'));
    expect(await found({ _id: { $gte: 't|', $lt: 'u' } })).toEqual(expected((id) => id >= 't|' && id < 'u'));
    expect(await found({ _id: { $gte: 't|a<', $lt: 't|a=' } })).toEqual(['t|a<b']);
    expect(await found({ _id: { $gte: 'a', $lt: 'z' } })).toEqual(expected(() => true));
  });

  // The devstack's FerretDB compares a filter's top-level strings in SQLite before decoding a document
  // (patch 0004): a field that holds an array, escapes in the stored text, other types and
  // the rest of the filter must still decide exactly, for reads, counts, updates and deletes alike.
  it('answers filters on other top-level fields exactly: arrays, escapes, $in and mixed types', async () => {
    const db = client.db(`engine_${randomBytes(3).toString('hex')}`);
    const docs = db.collection<{ _id: number; status?: unknown; tenant?: string }>('docs');
    const odd = 'a<b "q" é\\ \u2028&';
    await docs.insertMany([
      { _id: 1, status: 'queued', tenant: 't1' },
      { _id: 2, status: 'done', tenant: 't1' },
      { _id: 3, status: ['x', 'queued'], tenant: 't2' },
      { _id: 4, status: odd, tenant: 't1' },
      { _id: 5, tenant: 't1' },
      { _id: 6, status: 5, tenant: 't1' },
      { _id: 7, status: null, tenant: 't2' },
      { _id: 8, status: { k: 'queued' }, tenant: 't1' },
      { _id: 9, status: 'Queued', tenant: 't1' },
      { _id: 10, status: '5', tenant: 't2' },
    ]);
    const ids = async (filter: object) =>
      (await docs.find(filter as Filter<any>).toArray()).map((d) => d._id).sort((a, b) => a - b);
    expect(await ids({ status: 'queued' })).toEqual([1, 3]);
    expect(await ids({ status: odd })).toEqual([4]);
    expect(await ids({ status: '5' })).toEqual([10]);
    expect(await ids({ status: { $in: ['queued', 'done'] }, tenant: 't1' })).toEqual([1, 2]);
    expect(await ids({ status: { $in: ['queued', 5] } })).toEqual([1, 3, 6]);
    expect(await ids({ status: { $in: ['x'] }, tenant: 't2' })).toEqual([3]);
    expect(await ids({ status: { $ne: 'queued' }, tenant: 't2' })).toEqual([7, 10]);
    expect(await ids({ status: null })).toEqual([5, 7]);
    expect(await ids({ tenant: 't1', _id: { $nin: [1, 2] }, status: 'Queued' })).toEqual([9]);
    expect(await docs.countDocuments({ status: { $in: ['queued', 'done', odd] } })).toBe(4);
    expect((await docs.updateMany({ status: 'queued', tenant: 't2' }, { $set: { tenant: 't3' } })).modifiedCount).toBe(
      1,
    );
    expect((await docs.deleteMany({ tenant: 't1', status: { $in: ['done', 'gone'] } })).deletedCount).toBe(1);
    expect(await ids({ tenant: 't3' })).toEqual([3]);
    expect(await ids({})).toEqual([1, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Field names that are SQLite's own when double-quoted, as an index names a field.
    const named = db.collection<{ _id: number; [field: string]: unknown }>('named');
    await named.insertMany([
      { _id: 1, rowid: 'x', OID: 'y', _rowid_: 'z', _ferretdb_sjson: 'w' },
      { _id: 2, rowid: 'no' },
    ]);
    for (const [field, value] of Object.entries({ rowid: 'x', OID: 'y', _rowid_: 'z', _ferretdb_sjson: 'w' }))
      expect((await named.find({ [field]: value }).toArray()).map((d) => d._id)).toEqual([1]);
  });

  // The search index reads the best postings of a term as the first N of an _id range sorted by _id
  // (patch 0005): the order must be MongoDB's (bytes of the string), not that of
  // the ids' JSON text, whose quotes and escapes would put `t|a b` before `t|a` and `t|a<` after `t|aA`.
  it('reads a string range of _id sorted by _id, up to a limit, in MongoDB’s order', async () => {
    const db = client.db(`engine_${randomBytes(3).toString('hex')}`);
    const docs = db.collection<{ _id: any; n: number }>('docs');
    const ids = ['t|a', 't|a b', 't|a!', 't|a"', 't|a<', 't|aA', 't|a\\', 't|aé', 't|ab', 't|b', 't|', 'u|a'];
    await docs.insertMany([...ids.map((_id, n) => ({ _id, n })), { _id: 7, n: 100 }, { _id: new ObjectId(), n: 101 }]);
    const inRange = ids
      .filter((id) => id >= 't|a' && id < 't|b')
      .sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    const read = async (sort: 1 | -1, limit: number) =>
      (
        await docs
          .find({ _id: { $gte: 't|a', $lt: 't|b' } } as Filter<any>)
          .sort({ _id: sort })
          .limit(limit)
          .toArray()
      ).map((d) => d._id);
    expect(await read(1, 100)).toEqual(inRange);
    expect(await read(1, 3)).toEqual(inRange.slice(0, 3));
    expect(await read(-1, 4)).toEqual([...inRange].reverse().slice(0, 4));
    const after = inRange[2];
    const next = await docs
      .find({ _id: { $gt: after, $lt: 't|b' } } as Filter<any>)
      .sort({ _id: 1 })
      .limit(2)
      .toArray();
    expect(next.map((d) => d._id)).toEqual(inRange.slice(3, 5));
  });
});

import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';

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

  // Job writes and the search index send bulks of hundreds of updates; FerretDB 1.24 as released
  // hangs for good on one of 100+ statements that match (see FERRETDB_BUILD's patch).
  it('applies one bulk of 250 updates that all match, and another right after it', async () => {
    const docs = client.db(`engine_${randomBytes(3).toString('hex')}`).collection<{ _id: string; n: number }>('docs');
    await docs.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: `d${i}`, n: 0 })));
    const bump = () => docs.bulkWrite(
      Array.from({ length: 250 }, (_, i) => ({ updateOne: { filter: { _id: `d${i}` }, update: { $inc: { n: 1 } }, upsert: true } })),
      { ordered: false },
    );
    expect((await bump()).modifiedCount).toBe(250);
    expect((await bump()).modifiedCount).toBe(250);
    expect(await docs.countDocuments({ n: 2 })).toBe(250);
  }, 30_000);
});

import type { AnyModel } from './any-model';
import type Redis from 'ioredis';
import { isDuplicateKeyError } from './errors';

/** Raises the counter to at least the highest stored id (Redis may have lost it, or never had it). */
const RAISE_TO = `local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

async function highestStoredId(model: AnyModel): Promise<number> {
  const top = await model
    .findOne({}, { _id: 1 })
    .sort({ _id: -1 })
    .setOptions({ allTenants: true })
    .lean<{ _id: number }>();
  return top?._id ?? 0;
}

/**
 * Inserts a record under a fresh integer id (brands, integration keys: docs/decisions.md §9). Ids come
 * from one Redis INCR per counter, so concurrent creates on any number of API processes get distinct
 * ids without a conditional update (which FerretDB does not make atomic); the insert of `_id` is the
 * final arbiter: should the counter be behind the stored ids (Redis lost it), the duplicate is caught,
 * the counter raised past the highest id, and the insert retried.
 */
export async function insertWithNewIntegerId<T>(
  redis: Redis,
  counter: string,
  model: AnyModel,
  insert: (id: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const id = await redis.incr(counter);
    try {
      return await insert(id);
    } catch (err) {
      if (!isDuplicateKeyError(err) || attempt >= 20) throw err;
      // Another unique key clashed: that is the caller's conflict, not the counter's.
      if (!(await model.exists({ _id: id }).setOptions({ allTenants: true }))) throw err;
      await redis.eval(RAISE_TO, 1, counter, String(await highestStoredId(model)));
    }
  }
}

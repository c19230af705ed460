import type Redis from 'ioredis';
import { PinModel } from '../pin.model';
import { PinMemoryIndex } from './memory-index';
import { publishPinChanges } from './pin-changes';
import type { PinSearchEngine, SearchResponse } from './engine';
import { toMongoFilter, type MongoQuery } from './mongo-filter';
import { answerSearch, type SourceDoc } from './search-pipeline';
import { toSearchDocument } from './search-document';
import { parseSearchRequest, type SearchRequest } from './search-request';

/** Only what resolve-pin serves is searchable: an active subscription not yet past its end. */
export const visiblePins = (now: Date): MongoQuery => ({
  'subscription.status': 'active',
  'subscription.expires_at': { $gt: now },
});

/** The MongoDB query the built-in engine issues for a request (the benchmark measures it raw). */
export function builtinMongoQuery(req: Pick<SearchRequest, 'filter'>, now = new Date()): MongoQuery {
  const pushed = toMongoFilter(req.filter);
  return Object.keys(pushed).length ? { $and: [visiblePins(now), pushed] } : visiblePins(now);
}

/**
 * The query-per-search path: the filter's pushed-down part runs in MongoDB (a superset of the answer),
 * the rest in process. FerretDB has no geo operators, so geo areas reach MongoDB as a latitude/longitude
 * box and are made exact in process.
 */
export async function searchThroughMongo(req: SearchRequest, started: bigint): Promise<SearchResponse> {
  // The driver, not Mongoose: a pushed-down filter may hold a regex or number for any path, which Mongoose would
  // cast by the schema.
  const pins = await PinModel.collection.find(builtinMongoQuery(req)).toArray();
  const source = pins.map((pin): SourceDoc => ({ doc: toSearchDocument(pin as never) }));
  return answerSearch(req, source, started);
}

/**
 * The built-in engine. With Redis it answers from the process's in-memory index (memory-index.ts), kept
 * current by the pin change feed, which `index`/`remove` append to; if Redis cannot be reached it answers
 * through MongoDB instead (slow, but never from an index that may be stale). Without Redis (the
 * benchmark's baseline), always through MongoDB.
 */
export function createBuiltinEngine(opts: { redis?: Redis } = {}): PinSearchEngine & { memory: PinMemoryIndex | null } {
  const memory = opts.redis ? new PinMemoryIndex(opts.redis) : null;
  return {
    kind: 'builtin',
    memory,
    async index(docs) {
      if (opts.redis)
        await publishPinChanges(
          opts.redis,
          docs.map((d) => d.pin_id),
        );
    },
    async remove(pinIds) {
      if (opts.redis) await publishPinChanges(opts.redis, pinIds);
    },
    async search(body) {
      const started = process.hrtime.bigint();
      const req = parseSearchRequest(body);
      if (
        memory &&
        (await memory.sync().then(
          () => true,
          (err) => (isRedisFailure(err) ? false : Promise.reject(err)),
        ))
      ) {
        return answerSearch(req, memory.candidates(req.filter), started);
      }
      return searchThroughMongo(req, started);
    },
  };
}

/** Redis refused or is unreachable (ioredis's errors), as opposed to MongoDB failing during a sync. */
function isRedisFailure(err: unknown): boolean {
  const name = (err as Error)?.name ?? '';
  const message = (err as Error)?.message ?? '';
  return (
    name === 'ReplyError' ||
    name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|Stream isn't writeable|ECONNREFUSED|ETIMEDOUT/i.test(message)
  );
}

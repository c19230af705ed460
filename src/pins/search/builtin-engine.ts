import { PinModel } from '../pin.model';
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
  // The driver, not Mongoose: a pushed-down filter may hold a regex or number for any path, which Mongoose would cast by the schema.
  const pins = await PinModel.collection.find(builtinMongoQuery(req)).toArray();
  const source = pins.map((pin): SourceDoc => ({ doc: toSearchDocument(pin as never) }));
  return answerSearch(req, source, started);
}

/** The built-in engine: it reads the pins collection itself, so indexing is nothing to do. */
export function createBuiltinEngine(): PinSearchEngine {
  return {
    kind: 'builtin',
    async index() {},
    async remove() {},
    async search(body) {
      const started = process.hrtime.bigint();
      return searchThroughMongo(parseSearchRequest(body), started);
    },
  };
}

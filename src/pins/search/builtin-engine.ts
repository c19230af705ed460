import { PinModel } from '../pin.model';
import { MAX_TOTAL_HITS, type PinSearchEngine, type SearchResponse } from './engine';
import { matchesFilter } from './filter-eval';
import { toMongoFilter, type MongoQuery } from './mongo-filter';
import { DISPLAYED_ATTRIBUTES, distanceMeters, toSearchDocument, valuesAt, type PinSearchDocument } from './search-document';
import { parseSearchRequest, type SearchRequest, type SortRule } from './search-request';
import { scoreText, wordsOf, type TextScore } from './text-match';

interface Candidate {
  doc: PinSearchDocument;
  score: TextScore;
  distance?: number;
}

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

/** Meilisearch orders values ascending numbers first, then strings; documents without the field come last. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
  return 0;
}

function sortKey(c: Candidate, rule: SortRule): unknown {
  if (rule.kind === 'geo') return c.distance;
  const values = valuesAt(c.doc, rule.field).values.filter((v) => typeof v === 'number' || typeof v === 'string');
  if (values.length === 0) return undefined;
  return values.sort(compareValues)[rule.desc ? values.length - 1 : 0];
}

function compareCandidates(a: Candidate, b: Candidate, req: SearchRequest): number {
  if (req.q) {
    if (a.score.matchedWords !== b.score.matchedWords) return b.score.matchedWords - a.score.matchedWords;
    if (a.score.typos !== b.score.typos) return a.score.typos - b.score.typos;
  }
  for (const rule of req.sort) {
    const ka = sortKey(a, rule);
    const kb = sortKey(b, rule);
    if (ka === undefined || kb === undefined) {
      if (ka !== kb) return ka === undefined ? 1 : -1; // missing last, whatever the direction
      continue;
    }
    const c = compareValues(ka, kb);
    if (c !== 0) return rule.desc ? -c : c;
  }
  return a.doc.pin_id < b.doc.pin_id ? -1 : a.doc.pin_id > b.doc.pin_id ? 1 : 0;
}

function project(c: Candidate, attributes: string[], geoSorted: boolean): Record<string, unknown> {
  const all = attributes.includes('*');
  const hit: Record<string, unknown> = {};
  for (const key of DISPLAYED_ATTRIBUTES) {
    if (all || attributes.includes(key)) hit[key] = c.doc[key as keyof PinSearchDocument];
    else {
      // A nested attribute (`business.name`) keeps just that part of its object.
      const nested = attributes.filter((a) => a.startsWith(`${key}.`)).map((a) => a.slice(key.length + 1));
      const source = c.doc[key as keyof PinSearchDocument];
      if (nested.length && source && typeof source === 'object') {
        const part: Record<string, unknown> = {};
        for (const n of nested) if (n in source) part[n] = (source as Record<string, unknown>)[n];
        hit[key] = part;
      }
    }
  }
  if (geoSorted && c.distance !== undefined) hit._geoDistance = Math.round(c.distance);
  return hit;
}

function facetsOf(candidates: Candidate[], facets: string[]) {
  const facetDistribution: Record<string, Record<string, number>> = {};
  const facetStats: Record<string, { min: number; max: number }> = {};
  for (const facet of facets) {
    const counts: Record<string, number> = {};
    let min = Infinity;
    let max = -Infinity;
    for (const c of candidates) {
      const seen = new Set<string>();
      for (const v of valuesAt(c.doc, facet).values) {
        if (typeof v === 'number') {
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
        if (typeof v !== 'number' && typeof v !== 'string' && typeof v !== 'boolean') continue;
        const key = String(v);
        if (!seen.has(key.toLowerCase())) counts[key] = (counts[key] ?? 0) + 1;
        seen.add(key.toLowerCase());
      }
    }
    facetDistribution[facet] = Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, 100));
    if (min <= max) facetStats[facet] = { min, max };
  }
  return { facetDistribution, facetStats };
}

/**
 * The built-in engine: the filter's pushed-down part runs in MongoDB (a superset of the answer), then the
 * exact filter, text matching, sort (including `_geoPoint`), facets and paging run in process. FerretDB
 * has no geo operators, so geo areas reach MongoDB as a latitude/longitude box and are made exact here.
 */
export function createBuiltinEngine(): PinSearchEngine {
  return {
    kind: 'builtin',
    async index() {},
    async remove() {},
    async search(body): Promise<SearchResponse> {
      const started = process.hrtime.bigint();
      const req = parseSearchRequest(body);
      // The driver, not Mongoose: a pushed-down filter may hold a regex or number for any path, which Mongoose would cast by the schema.
      const pins = await PinModel.collection.find(builtinMongoQuery(req)).toArray();
      const queryWords = wordsOf(req.q);
      const geo = req.sort.find((r): r is Extract<SortRule, { kind: 'geo' }> => r.kind === 'geo');
      const candidates: Candidate[] = [];
      for (const pin of pins) {
        const doc = toSearchDocument(pin as never);
        if (req.filter && !matchesFilter(req.filter, doc)) continue;
        const score = scoreText(queryWords, doc, req.matchingStrategy);
        if (!score) continue;
        candidates.push({ doc, score, distance: geo ? distanceMeters(geo, doc._geo) : undefined });
      }
      candidates.sort((a, b) => compareCandidates(a, b, req));
      const reachable = candidates.slice(0, MAX_TOTAL_HITS);
      const answer: Record<string, unknown> = {};
      let page: Candidate[];
      if (req.paging.mode === 'offset') {
        const { limit, offset } = req.paging;
        page = reachable.slice(offset, offset + limit);
        Object.assign(answer, { limit, offset, estimatedTotalHits: reachable.length });
      } else {
        const { page: number, hitsPerPage } = req.paging;
        page = number === 0 || hitsPerPage === 0 ? [] : reachable.slice((number - 1) * hitsPerPage, number * hitsPerPage);
        const totalPages = hitsPerPage === 0 ? 0 : Math.ceil(reachable.length / hitsPerPage);
        Object.assign(answer, { hitsPerPage, page: number, totalPages, totalHits: reachable.length });
      }
      if (req.facets.length) Object.assign(answer, facetsOf(candidates, req.facets));
      return {
        hits: page.map((c) => project(c, req.attributesToRetrieve, geo !== undefined)),
        query: req.q,
        processingTimeMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
        ...answer,
      };
    },
  };
}

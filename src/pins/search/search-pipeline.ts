import { MAX_TOTAL_HITS, type SearchResponse } from './engine';
import { matchesFilter, type ValuesOf } from './filter-eval';
import { DISPLAYED_ATTRIBUTES, distanceMeters, valuesAt, type PinSearchDocument } from './search-document';
import type { SearchRequest, SortRule } from './search-request';
import { documentWords, scoreWords, wordsOf, type TextScore } from './text-match';

/** A pin the built-in engine considers: its search document and, when kept in memory, its words. */
export interface SourceDoc {
  doc: PinSearchDocument;
  words?: Set<string>;
  valuesOf?: ValuesOf;
}

interface Candidate {
  doc: PinSearchDocument;
  valuesOf: ValuesOf;
  score: TextScore;
  distance?: number;
  keys: unknown[]; // one sort key per sort rule, computed once
}

/** Meilisearch orders values ascending numbers first, then strings; documents without the field come last. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string')
    return a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
  return 0;
}

function sortKey(valuesOf: ValuesOf, distance: number | undefined, rule: SortRule): unknown {
  if (rule.kind === 'geo') return distance;
  const values = valuesOf(rule.field).values.filter((v) => typeof v === 'number' || typeof v === 'string');
  if (values.length === 0) return undefined;
  return values.sort(compareValues)[rule.desc ? values.length - 1 : 0];
}

function comparatorFor(req: SearchRequest) {
  return (a: Candidate, b: Candidate): number => {
    if (req.q) {
      if (a.score.matchedWords !== b.score.matchedWords) return b.score.matchedWords - a.score.matchedWords;
      if (a.score.typos !== b.score.typos) return a.score.typos - b.score.typos;
    }
    for (let i = 0; i < req.sort.length; i++) {
      const ka = a.keys[i];
      const kb = b.keys[i];
      if (ka === undefined || kb === undefined) {
        if (ka !== kb) return ka === undefined ? 1 : -1; // missing last, whatever the direction
        continue;
      }
      const c = compareValues(ka, kb);
      if (c !== 0) return req.sort[i].desc ? -c : c;
    }
    return a.doc.pin_id < b.doc.pin_id ? -1 : a.doc.pin_id > b.doc.pin_id ? 1 : 0;
  };
}

/**
 * The first `k` candidates in order, without sorting them all: a buffer is sorted and cut back to `k`
 * whenever it doubles, and anything ranked after the current k-th is dropped with one comparison.
 */
function firstSorted(candidates: Candidate[], k: number, compare: (a: Candidate, b: Candidate) => number): Candidate[] {
  if (candidates.length <= 2 * k) return candidates.sort(compare).slice(0, k);
  let best: Candidate[] = [];
  let worst: Candidate | undefined;
  for (const c of candidates) {
    if (worst && compare(c, worst) >= 0) continue;
    best.push(c);
    if (best.length >= 2 * k) {
      best = best.sort(compare).slice(0, k);
      worst = best[k - 1];
    }
  }
  return best.sort(compare).slice(0, k);
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
      for (const v of c.valuesOf(facet).values) {
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
    facetDistribution[facet] = Object.fromEntries(
      Object.entries(counts)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, 100),
    );
    if (min <= max) facetStats[facet] = { min, max };
  }
  return { facetDistribution, facetStats };
}

/**
 * The built-in engine's answer from the pins a source offers (a superset of the answer, all visible):
 * the exact filter, text matching, sort (including `_geoPoint`), facets and paging, in process.
 */
export function answerSearch(req: SearchRequest, source: Iterable<SourceDoc>, started: bigint): SearchResponse {
  const queryWords = wordsOf(req.q);
  const geo = req.sort.find((r): r is Extract<SortRule, { kind: 'geo' }> => r.kind === 'geo');
  const candidates: Candidate[] = [];
  for (const { doc, words, valuesOf: cached } of source) {
    const valuesOf = cached ?? ((field: string) => valuesAt(doc, field));
    if (req.filter && !matchesFilter(req.filter, doc, valuesOf)) continue;
    const score = queryWords.length
      ? scoreWords(queryWords, words ?? documentWords(doc), req.matchingStrategy)
      : { matchedWords: 0, typos: 0 };
    if (!score) continue;
    const distance = geo ? distanceMeters(geo, doc._geo) : undefined;
    candidates.push({
      doc,
      valuesOf,
      score,
      distance,
      keys: req.sort.map((rule) => sortKey(valuesOf, distance, rule)),
    });
  }
  const reachable = firstSorted(candidates, MAX_TOTAL_HITS, comparatorFor(req));
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
}

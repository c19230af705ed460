import { ResourceModel, type ResourceType } from './resource.model';
import { averageLength, idf, saturation } from './bm25';
import type { Posting } from './postings';
import { groupBy } from './group-by';
import { TermDfModel, TermModel, dfId, idPrefixRange, readStats, type TermStats } from './search-index.model';
import { SEARCH_FIELDS, tokenize } from './text';
import { resourceView, type ResourceView, type StoredResource } from './view';

/**
 * Ranked search over the term index (search-index.model.ts), scored in Node so that MongoDB and
 * FerretDB answer the same:
 *
 *   score(r) = boost(r) × Σ over query terms t of  match(t) × idf(t) × Σ over fields f of r:
 *              weight(f) × saturation(tf(t, f), len(f), avglen(f))                       (BM25)
 *
 * - Terms are normalised and accent-folded (text.ts); the last term also matches as a prefix when the
 *   query does not end in a space or punctuation (`caf` finds `cafe`): match(t) is 1 for the term as
 *   typed and PREFIX_MATCH for a longer completion; a resource counts its best completion only, and
 *   the idf of a prefix is that of all its completions together (a rare completion does not outrank
 *   the word itself).
 * - boost(r), for queries of two terms or more, is the best over r's fields of: ALL_TERMS_BOOST when
 *   every query term is in the field, PHRASE_BOOST when they stand in it in order and next to each
 *   other, WHOLE_FIELD_BOOST when they are the whole field (the name is exactly what was typed).
 * - Ties are broken by resource id, so the order is stable.
 */
export const PREFIX_MATCH = 0.5;
export const ALL_TERMS_BOOST = 1.25;
export const PHRASE_BOOST = 1.5;
export const WHOLE_FIELD_BOOST = 2;
const MIN_PREFIX = 2;
const MAX_EXPANSIONS = 30;
const MAX_QUERY_TERMS = 32;
/** A term found in more resources than this is read best-first (by `impact`) and cut off there. */
export const POSTINGS_CUTOFF = 5000;

interface Slot {
  /** The term as typed, and the index terms it matches with their match factor. */
  typed: string;
  matches: Map<string, number>;
}

export interface SearchOptions {
  limit: number;
  fields: string[];
  /** Flags a result must carry and flags it must not. */
  require: string[];
  exclude: string[];
}

export type SearchItem = ResourceView & { score: number };

export async function searchResources(
  clientId: string,
  type: ResourceType,
  q: string,
  opts: SearchOptions,
): Promise<SearchItem[]> {
  const scope = { client_id: clientId, resource_type: type };
  const all = tokenize(q);
  const tokens = all.slice(0, MAX_QUERY_TERMS);
  if (!tokens.length) return [];
  const last = tokens[tokens.length - 1];
  const typing = /[\p{L}\p{N}]$/u.test(q) && all.length === tokens.length;
  const prefix = typing && last.length >= MIN_PREFIX ? last : null;
  const [stats, vocab, completions] = await Promise.all([
    readStats(clientId, type),
    TermDfModel.find(
      { ...scope, _id: { $in: [...new Set(tokens)].map((t) => dfId(clientId, type, t)) } },
      { _id: 0, term: 1, df: 1 },
    ).lean<{ term: string; df: number }[]>(),
    // Completions in term order, the first 1000; the most frequent of those are used.
    prefix
      ? TermDfModel.find(
          { ...scope, _id: idPrefixRange(dfId(clientId, type, prefix), false) },
          { _id: 0, term: 1, df: 1 },
        )
          .sort({ _id: 1 })
          .limit(1000)
          .lean<{ term: string; df: number }[]>()
      : [],
  ]);
  const df = new Map([...vocab, ...completions].map((v) => [v.term, v.df]));
  const slots = slotsOf(tokens, prefix, completions, df);
  const rows = await readPostings(clientId, type, [...new Set(slots.flatMap((s) => [...s.matches.keys()]))]);
  const ranked = rank(type, slots, rows, df, stats);
  return fetchRanked(scope, ranked, opts);
}

function slotsOf(
  tokens: string[],
  prefix: string | null,
  completions: { term: string; df: number }[],
  df: Map<string, number>,
): Slot[] {
  return tokens.map((typed, i) => {
    const matches = new Map<string, number>();
    if (df.has(typed)) matches.set(typed, 1);
    if (prefix && i === tokens.length - 1) {
      const best = [...completions]
        .sort((a, b) => b.df - a.df || a.term.localeCompare(b.term))
        .slice(0, MAX_EXPANSIONS);
      for (const c of best) matches.set(c.term, PREFIX_MATCH);
    }
    return { typed, matches };
  });
}

/** The postings of each term, best first (one range of _id, see postingId), at most POSTINGS_CUTOFF of them. */
async function readPostings(clientId: string, type: ResourceType, terms: string[]): Promise<Posting[]> {
  const scope = { client_id: clientId, resource_type: type };
  const projection = { _id: 0, term: 1, resource_id: 1, field: 1, tf: 1, pos: 1, len: 1 };
  const lists = await Promise.all(
    terms.map((term) =>
      TermModel.find({ ...scope, _id: idPrefixRange(`${dfId(clientId, type, term)}|`) }, projection)
        .sort({ _id: 1 })
        .limit(POSTINGS_CUTOFF)
        .lean<Posting[]>(),
    ),
  );
  return lists.flat();
}

interface Ranked {
  id: string;
  score: number;
}

function rank(type: ResourceType, slots: Slot[], rows: Posting[], df: Map<string, number>, stats: TermStats): Ranked[] {
  const weights = SEARCH_FIELDS[type];
  const docs = Math.max(stats.docs, 1);
  const distinct = [...new Map(slots.map((s) => [s.typed, s])).values()].map((slot) => ({
    slot,
    idf: idf(
      docs,
      Math.min(
        docs,
        [...slot.matches.keys()].reduce((sum, t) => sum + (df.get(t) ?? 0), 0),
      ),
    ),
  }));
  const ranked: Ranked[] = [];
  for (const [id, postings] of groupBy(rows, (p) => p.resource_id)) {
    const byTerm = groupBy(postings, (p) => p.term);
    let score = 0;
    for (const { slot, idf: slotIdf } of distinct) {
      let best = 0;
      for (const [term, factor] of slot.matches) {
        const fieldScore = (byTerm.get(term) ?? []).reduce(
          (sum, p) => sum + (weights[p.field] ?? 0) * saturation(p.tf, p.len, averageLength(stats, p.field) || p.len),
          0,
        );
        best = Math.max(best, factor * fieldScore);
      }
      score += slotIdf * best;
    }
    ranked.push({ id, score: score * (distinct.length > 1 ? queryBoost(slots, postings) : 1) });
  }
  return ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The best of ALL_TERMS_BOOST, PHRASE_BOOST and WHOLE_FIELD_BOOST that one of the resource's fields earns. */
function queryBoost(slots: Slot[], postings: Posting[]): number {
  let boost = 1;
  for (const [, fieldPostings] of groupBy(postings, (p) => p.field)) {
    const matching = slots.map((slot) => fieldPostings.filter((p) => slot.matches.has(p.term)));
    if (matching.some((m) => !m.length)) continue;
    boost = Math.max(boost, ALL_TERMS_BOOST);
    const positions = matching.map((m) => new Set(m.flatMap((p) => p.pos)));
    for (const start of positions[0]) {
      if (!positions.every((s, i) => s.has(start + i))) continue;
      boost = Math.max(boost, start === 0 && fieldPostings[0].len === slots.length ? WHOLE_FIELD_BOOST : PHRASE_BOOST);
    }
  }
  return boost;
}

/** The ranked resources that pass the flag filter, best first, read in growing chunks until `limit`. */
async function fetchRanked(
  scope: { client_id: string; resource_type: ResourceType },
  ranked: Ranked[],
  opts: SearchOptions,
): Promise<SearchItem[]> {
  const flags: Record<string, string[]> = {};
  if (opts.require.length) flags.$all = opts.require;
  if (opts.exclude.length) flags.$nin = opts.exclude;
  const items: SearchItem[] = [];
  let from = 0;
  let chunk = Math.max(opts.limit * 2, 50);
  while (items.length < opts.limit && from < ranked.length) {
    const part = ranked.slice(from, from + chunk);
    const filter = { ...scope, _id: { $in: part.map((r) => r.id) }, ...(Object.keys(flags).length ? { flags } : {}) };
    const docs = new Map((await ResourceModel.find(filter).lean<StoredResource[]>()).map((d) => [d._id, d]));
    for (const r of part) {
      const doc = docs.get(r.id);
      if (doc && items.length < opts.limit)
        items.push({ ...resourceView(doc, opts.fields), score: Math.round(r.score * 1e4) / 1e4 });
    }
    from += chunk;
    chunk *= 4;
  }
  return items;
}

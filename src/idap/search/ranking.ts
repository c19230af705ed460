import type { ResourceType } from '../resources/resource.model';
import { averageLength, idf, saturation } from './bm25';
import type { Posting } from './postings';
import { groupBy } from '../../lib/arrays';
import type { TermStats } from './search-index.model';
import { SEARCH_FIELDS, tokenize } from './text';

/**
 * How a search ranks (docs/idap.md, "How search ranks"), as pure functions of a resource's postings: the read path
 * (top-k.ts) scores each resource it reads with them, and the benchmark's exhaustive ranking scores every resource
 * of the query's terms with the same ones.
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

/** The part of a posting that scoring reads. */
export type ScoredPosting = Pick<Posting, 'term' | 'field' | 'tf' | 'pos' | 'len'>;

interface Slot {
  /** The term as typed, and the index terms it matches with their match factor. */
  typed: string;
  matches: Map<string, number>;
}

/** A query's terms as typed, and the one still being typed (matched as a prefix), if any. */
export function parseQuery(q: string): { tokens: string[]; prefix: string | null } {
  const all = tokenize(q);
  const tokens = all.slice(0, MAX_QUERY_TERMS);
  const last = tokens[tokens.length - 1];
  const typing = /[\p{L}\p{N}]$/u.test(q) && all.length === tokens.length;
  return { tokens, prefix: tokens.length && typing && last.length >= MIN_PREFIX ? last : null };
}

export interface PreparedQuery {
  type: ResourceType;
  slots: Slot[];
  /** The distinct typed terms with their idf: what the score sums over. */
  distinct: { slot: Slot; idf: number }[];
  /** Every index term the query matches. */
  terms: string[];
  termSet: Set<string>;
  stats: TermStats;
}

/**
 * The query against the index's vocabulary: `df` holds the document frequency of every typed term and every
 * completion that is in the index, `completions` the prefix's completions (term order, as read).
 */
export function prepareQuery(
  type: ResourceType,
  parsed: { tokens: string[]; prefix: string | null },
  completions: { term: string; df: number }[],
  df: Map<string, number>,
  stats: TermStats,
): PreparedQuery {
  const { tokens, prefix } = parsed;
  const best = prefix
    ? [...completions].sort((a, b) => b.df - a.df || a.term.localeCompare(b.term)).slice(0, MAX_EXPANSIONS)
    : [];
  const slots = tokens.map((typed, i) => {
    const matches = new Map<string, number>();
    if (df.has(typed)) matches.set(typed, 1);
    if (prefix && i === tokens.length - 1) for (const c of best) matches.set(c.term, PREFIX_MATCH);
    return { typed, matches };
  });
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
  const termSet = new Set(slots.flatMap((s) => [...s.matches.keys()]));
  return { type, slots, distinct, terms: [...termSet], termSet, stats };
}

/** A resource's score for the query, from its postings (of any terms: those the query does not match are left out). */
export function scoreOf(query: PreparedQuery, postings: readonly ScoredPosting[]): number {
  const mine = postings.filter((p) => query.termSet.has(p.term));
  if (!mine.length) return 0;
  const weights = SEARCH_FIELDS[query.type];
  const byTerm = groupBy(mine, (p) => p.term);
  let score = 0;
  for (const { slot, idf: slotIdf } of query.distinct) {
    let best = 0;
    for (const [term, factor] of slot.matches) {
      const fieldScore = (byTerm.get(term) ?? []).reduce(
        (sum, p) =>
          sum + (weights[p.field] ?? 0) * saturation(p.tf, p.len, averageLength(query.stats, p.field) || p.len),
        0,
      );
      best = Math.max(best, factor * fieldScore);
    }
    score += slotIdf * best;
  }
  return score * (query.distinct.length > 1 ? queryBoost(query.slots, mine) : 1);
}

/** The best of ALL_TERMS_BOOST, PHRASE_BOOST and WHOLE_FIELD_BOOST that one of the resource's fields earns. */
function queryBoost(slots: Slot[], postings: ScoredPosting[]): number {
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

export interface Ranked {
  id: string;
  score: number;
}

/** Best first; equal scores by resource id. */
export const byRank = (a: Ranked, b: Ranked) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every resource of `rows` (postings of the query's terms, any number per resource) ranked: the exhaustive ranking. */
export function rankAll(query: PreparedQuery, rows: Pick<Posting, 'resource_id' | keyof ScoredPosting>[]): Ranked[] {
  return [...groupBy(rows, (p) => p.resource_id)].map(([id, ps]) => ({ id, score: scoreOf(query, ps) })).sort(byRank);
}

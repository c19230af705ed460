import type { SearchTrace } from './search-trace';
import type { TypeReads } from './type-cache';
import { WHOLE_FIELD_BOOST, byRank, scoreOf, type PreparedQuery, type Ranked } from './ranking';
import { INDEX_LAYOUT, rankCeiling } from './search-index.model';
import type { StoredResource } from '../resources/view';

/**
 * Postings a search goes through at most, over all its terms: what bounds its cost when the best resources
 * cannot be told apart early (many resources of equal weight for every term), whatever the tenant's size.
 */
export const POSTINGS_BUDGET = 1000;
/** Postings taken from one term's list at a time. */
const BLOCK = 64;
/** Scores this close (relatively) are ties: ranks round impacts to 1e-8. */
const TIE = 1e-6;

export interface TopOptions {
  k: number;
  /** Whether a resource may be answered (the flags filter). */
  eligible: (doc: StoredResource) => boolean;
  /** The index's layout (search-index.model.ts): below INDEX_LAYOUT, no early stop can be proven. */
  layout: number;
  budget?: number;
}

/**
 * The k best eligible resources for the query, reading each term's postings best first (a threshold algorithm,
 * after Fagin's TA): postings are read a block at a time from the list whose next posting could add most to a
 * score; every resource met is scored in full from its forward index entry (all its postings, so the phrase
 * and whole-field boosts are exact), and the k best that pass the flags filter are kept. A resource not met
 * yet has, in every list, a posting no better than the list's next one, so it scores at most
 *
 *   bound = boost × Σ over query terms t:  idf(t) × match(t) × ceiling(next posting of t)
 *
 * (boost: WHOLE_FIELD_BOOST while every term could still be met, else 1). Reading stops once the k-th best
 * scores above the bound (or equals it and comes first by id, ties going to the lower id), when every list is
 * read, or after POSTINGS_BUDGET postings: the answer is then the best of what was read, the champion lists of
 * docs/idap.md.
 */
export async function topK(
  query: PreparedQuery,
  reads: TypeReads,
  opts: TopOptions,
  trace: SearchTrace,
): Promise<(Ranked & { doc: StoredResource })[]> {
  const cursors = new Map(query.terms.map((term) => [term, { list: reads.list(term), pos: 0 }]));
  type Cursor = typeof cursors extends Map<string, infer C> ? C : never;
  const slots = query.distinct.map(({ slot, idf }) => ({
    idf,
    lists: [...slot.matches].map(([term, factor]) => ({ cursor: cursors.get(term)!, factor })),
  }));
  const head = (c: Cursor) => c.list.entries[c.pos];
  const ceiling = (c: Cursor) => {
    const next = head(c);
    return next ? rankCeiling(next.rank) : 0;
  };
  const budget = opts.budget ?? POSTINGS_BUDGET;
  const top: (Ranked & { doc: StoredResource })[] = [];
  const met = new Set<string>();
  let read = 0;
  const all = [...cursors.values()];
  // Loads what is not read yet of the lists (side by side); nothing to wait for when every list has it.
  const ensure = async (lists: Cursor[], ahead: number) => {
    const short = lists.filter((c) => !c.list.done && c.list.entries.length < c.pos + ahead);
    if (short.length) await Promise.all(short.map((c) => c.list.ensure(c.pos + ahead, trace)));
  };
  for (;;) {
    await ensure(all, 1);
    const alive = all.filter((c) => head(c));
    if (!alive.length || read >= budget) break;
    const kth = top.length >= opts.k ? top[opts.k - 1] : null;
    if (kth && opts.layout >= INDEX_LAYOUT) {
      const bounds = slots.map((s) => s.idf * Math.max(0, ...s.lists.map((l) => l.factor * ceiling(l.cursor))));
      const boost = slots.length > 1 && bounds.every((b) => b > 0) ? WHOLE_FIELD_BOOST : 1;
      const bound = boost * bounds.reduce((a, b) => a + b, 0);
      const firstUnread = alive.map((c) => head(c)!.id).reduce((a, b) => (a < b ? a : b));
      if (kth.score > bound * (1 + TIE) || (kth.score >= bound * (1 - TIE) && kth.id < firstUnread)) break;
    }
    let next = alive[0];
    let gain = -1;
    for (const s of slots) {
      for (const l of s.lists) {
        const g = s.idf * l.factor * ceiling(l.cursor);
        if (head(l.cursor) && g > gain) [next, gain] = [l.cursor, g];
      }
    }
    await ensure([next], BLOCK);
    const block = next.list.entries.slice(next.pos, next.pos + BLOCK);
    next.pos += block.length;
    read += block.length;
    const fresh = block.map((e) => e.id).filter((id) => !met.has(id));
    if (!fresh.length) continue;
    for (const id of fresh) met.add(id);
    trace.candidates += fresh.length;
    const postings = await reads.forward(fresh, trace);
    const worst = top.length >= opts.k ? top[opts.k - 1] : null;
    const entrants = fresh
      .filter((id) => postings.has(id))
      .map((id) => ({ id, score: scoreOf(query, postings.get(id)!) }))
      .filter((r) => !worst || byRank(r, worst) < 0);
    if (!entrants.length) continue;
    const docs = await reads.resources(
      entrants.map((r) => r.id),
      trace,
    );
    for (const r of entrants) {
      const doc = docs.get(r.id);
      if (doc && opts.eligible(doc)) top.push({ ...r, doc });
    }
    top.sort(byRank);
    if (top.length > opts.k) top.length = opts.k;
  }
  trace.postings += read;
  return top;
}

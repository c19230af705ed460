import { averageLength, saturation } from './bm25';
import type { ResourceType } from '../resources/resource.model';
import type { TermStats } from './search-index.model';
import { SEARCH_FIELDS, fieldTerms } from './text';

/** One row of idap_terms without its tenant and type. */
export interface Posting {
  term: string;
  resource_id: string;
  field: string;
  tf: number;
  pos: number[];
  len: number;
  /** The resource's BM25 weight for the term, over all its fields, with the statistics it was written with. */
  impact: number;
}

/**
 * The postings of one resource: per searchable field, each distinct term with its positions. Every posting of a
 * term carries the resource's weight for it summed over its fields (what ranks it in the term's list), so a
 * resource has one place in each list, whatever fields hold the term.
 */
export function postingsOf(
  type: ResourceType,
  resourceId: string,
  data: Record<string, unknown>,
  stats: TermStats,
): Posting[] {
  const out: Posting[] = [];
  for (const { field, terms, extra } of fieldTerms(type, data)) {
    const positions = new Map<string, number[]>();
    terms.forEach((t, i) => positions.set(t, [...(positions.get(t) ?? []), i]));
    for (const t of extra) positions.set(t, []);
    const len = terms.length;
    const avg = averageLength(stats, field) || len;
    for (const [term, pos] of positions) {
      const tf = Math.max(pos.length, 1);
      out.push({
        term,
        resource_id: resourceId,
        field,
        tf,
        pos,
        len,
        impact: SEARCH_FIELDS[type][field] * saturation(tf, len, avg),
      });
    }
  }
  const byTerm = new Map<string, number>();
  for (const p of out) byTerm.set(p.term, (byTerm.get(p.term) ?? 0) + p.impact);
  for (const p of out) p.impact = byTerm.get(p.term)!;
  return out;
}

/** What identifies a resource's postings, so rewriting unchanged text is skipped. */
export function postingsKey(postings: Pick<Posting, 'term' | 'field' | 'pos' | 'len'>[]): string {
  return postings
    .map((p) => `${p.field}\u0000${p.term}\u0000${p.pos.join(',')}\u0000${p.len}`)
    .sort()
    .join('\u0001');
}

/** Field lengths of one resource's postings (each field once). */
export function fieldLengths(postings: Pick<Posting, 'field' | 'len'>[]): Map<string, number> {
  return new Map(postings.map((p) => [p.field, p.len]));
}

/** Distinct terms of one resource's postings. */
export const termsOf = (postings: Pick<Posting, 'term'>[]): Set<string> => new Set(postings.map((p) => p.term));

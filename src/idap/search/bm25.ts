import type { TermStats } from './search-index.model';

/**
 * Okapi BM25 with the usual constants. A resource's score for a query is the sum over query terms of
 * idf(term) × Σ over its searchable fields of weight(field) × saturation(tf, field length).
 */
export const K1 = 1.2;
export const B = 0.75;

/** Inverse document frequency (the "+1" form, never negative). */
export function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** Term-frequency saturation, normalised by the field's length against its average. */
export function saturation(tf: number, len: number, avgLen: number): number {
  const norm = avgLen > 0 ? len / avgLen : 1;
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * norm));
}

export function averageLength(stats: TermStats, field: string): number {
  return stats.docs > 0 ? (stats.lengths[field] ?? 0) / stats.docs : 0;
}

import type { JsonBody } from '../../lib/contract-types';
import type { PinSearchDocument } from './search-document';

/** Meilisearch's search response: `hits`, `query`, `processingTimeMs`, then the paging and facet fields. */
export type SearchResponse = Record<string, unknown> & {
  hits: Record<string, unknown>[];
  query: string;
  processingTimeMs: number;
};

/** A pin search engine: Meilisearch, or the built-in one over MongoDB. Both answer the same body the same way. */
export interface PinSearchEngine {
  readonly kind: 'meilisearch' | 'builtin';
  search(body: JsonBody<'searchPins'>): Promise<SearchResponse>;
  /** Adds or replaces pins' documents (the built-in engine reads the pins collection, so nothing to do). */
  index(docs: PinSearchDocument[]): Promise<void>;
  remove(pinIds: string[]): Promise<void>;
}

/**
 * Meilisearch caps the hits a search can reach (pagination.maxTotalHits, 1000 by default); so does the built-in
 * engine.
 */
export const MAX_TOTAL_HITS = 1000;

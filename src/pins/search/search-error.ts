import { AppError } from '../../lib/errors';

/** Meilisearch's error codes the search body can earn; the built-in engine uses the same ones. */
export type SearchErrorCode =
  | 'bad_request'
  | 'invalid_search_q'
  | 'invalid_search_filter'
  | 'invalid_search_sort'
  | 'invalid_search_facets'
  | 'invalid_search_attributes_to_retrieve'
  | 'invalid_search_limit'
  | 'invalid_search_offset'
  | 'invalid_search_page'
  | 'invalid_search_hits_per_page'
  | 'invalid_search_matching_strategy';

const DOCS = 'https://docs.meilisearch.com/errors#';

/** A search body the engine rejects: 400 with Meilisearch's message as `detail`, plus its code, type and link. */
export function searchError(code: SearchErrorCode, message: string): AppError {
  return AppError.badRequest(message, { code, type: 'invalid_request', link: `${DOCS}${code}` });
}

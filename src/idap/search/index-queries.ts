import { ResourceModel, type ResourceType } from '../resources/resource.model';
import type { StoredResource } from '../resources/view';
import type { ScoredPosting } from './ranking';
import { DocTermsModel, TermDfModel, TermModel, dfId, idPrefixRange } from './search-index.model';

/**
 * The database reads over one tenant's resources of one type that a search and a batch make, each one query; what
 * of them is kept, and for how long, is the read cache's (type-cache.ts).
 */

/** One tenant's type: the scope of every read. */
export interface TypeScope {
  client_id: string;
  resource_type: ResourceType;
}

/** A term of the index and its document frequency. */
export type TermFrequency = { term: string; df: number };

/** Completions of a prefix read (in term order), of which the most frequent are used. */
export const MAX_COMPLETIONS = 1000;

/** The document frequencies of those of `terms` that are in the index. */
export const readFrequencies = (scope: TypeScope, terms: string[]): Promise<TermFrequency[]> =>
  TermDfModel.find(
    { ...scope, _id: { $in: terms.map((t) => dfId(scope.client_id, scope.resource_type, t)) } },
    { _id: 0, term: 1, df: 1 },
  )
    .lean<TermFrequency[]>()
    .exec();

/** The index's terms that start with `prefix` (and are longer), the first MAX_COMPLETIONS in term order. */
export const readCompletions = (scope: TypeScope, prefix: string): Promise<TermFrequency[]> =>
  TermDfModel.find(
    { ...scope, _id: idPrefixRange(dfId(scope.client_id, scope.resource_type, prefix), false) },
    { _id: 0, term: 1, df: 1 },
  )
    .sort({ _id: 1 })
    .limit(MAX_COMPLETIONS)
    .lean<TermFrequency[]>()
    .exec();

/** The _id prefix of a term's postings (each posting's _id goes on with its rank and resource id). */
export const postingsPrefix = (scope: TypeScope, term: string) =>
  `${dfId(scope.client_id, scope.resource_type, term)}|`;

/** Up to `limit` ids of a term's postings (`prefix`: postingsPrefix), best first, after the id `after`. */
export async function readPostingIds(
  scope: TypeScope,
  prefix: string,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const range = after ? { $gt: after, $lt: `${prefix}\uffff` } : idPrefixRange(prefix);
  const rows = await TermModel.find({ ...scope, _id: range }, { _id: 1 })
    .sort({ _id: 1 })
    .limit(limit)
    .lean<{ _id: string }[]>();
  return rows.map((r) => r._id);
}

/** The forward index entries (each resource's postings) of those of `ids` indexed, one `$in`. */
export async function readForwardEntries(scope: TypeScope, ids: string[]): Promise<[string, ScoredPosting[]][]> {
  const found = await DocTermsModel.find({ ...scope, _id: { $in: ids } }, { postings: 1 }).lean<
    { _id: string; postings: ScoredPosting[] }[]
  >();
  return found.map((d) => [d._id, d.postings ?? []]);
}

/** Those of the resources `ids` that exist, one `$in`. */
export async function readResourceDocs(scope: TypeScope, ids: string[]): Promise<[string, StoredResource][]> {
  const found = await ResourceModel.find({ ...scope, _id: { $in: ids } }).lean<StoredResource[]>();
  return found.map((d) => [d._id, d]);
}

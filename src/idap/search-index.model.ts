import { Schema, model } from 'mongoose';
import { RESOURCE_TYPES } from './resource.model';
import { tenantOwned } from '../lib/tenancy';

/**
 * The search index of IDAP resources, kept beside them and maintained on every write
 * (resources.service.ts). Four collections, all tenant-owned:
 *
 * - idap_terms: one posting per (term, resource, field) with the term's frequency and positions in
 *   that field, the field's length, and `impact` (the posting's BM25 weight when it was written);
 *   its _id orders a term's postings best-first, so a frequent term is read best-first and cut off.
 * - idap_doc_terms: per resource, the postings it has in idap_terms (what a re-index replaces).
 * - idap_term_df: the vocabulary with document frequencies per type; prefix matching expands the
 *   last query term with a range over it.
 * - idap_term_stats: per type, how many resources are indexed and the summed length of each field
 *   (BM25's average field length).
 *
 * Every document has an _id derived from what identifies it (tenant, type, term, resource, field),
 * so that maintaining the index is lookups and writes by _id, and reading a term's postings or a
 * prefix's completions is one range of _id: the access paths that every MongoDB-wire engine serves
 * from an index (the devstack's FerretDB serves no other, src/lib/devstack/ferretdb-build.ts).
 */
export const dfId = (clientId: string, type: string, term: string) => `${clientId}|${type}|${term}`;
/**
 * A posting's id is its term's dfId, then its impact rank (best first), then resource and field: a
 * term's postings are one range of _id, in the order a search wants them, so that its best N are the
 * first N of the range on every engine.
 */
export const postingId = (
  clientId: string,
  type: string,
  p: { term: string; impact: number; resource_id: string; field: string },
) => `${dfId(clientId, type, p.term)}|${impactRank(p.impact)}|${p.resource_id}|${p.field}`;
/** 000000 for the highest impact (BM25 weights stay far below 100) to 999999 for none, fixed width. */
const impactRank = (impact: number) =>
  String(999_999 - Math.max(0, Math.min(999_999, Math.round(impact * 10_000)))).padStart(6, '0');
export const statsId = (clientId: string, type: string) => `${clientId}|${type}`;
/** The _id range of what starts with `prefix` (terms never hold the range's last character). */
export const idPrefixRange = (prefix: string, inclusive = true) => ({
  [inclusive ? '$gte' : '$gt']: prefix,
  $lt: `${prefix}\uffff`,
});

const termSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    resource_type: { type: String, enum: RESOURCE_TYPES, required: true },
    term: { type: String, required: true },
    resource_id: { type: String, required: true },
    field: { type: String, required: true },
    tf: { type: Number, required: true },
    pos: { type: [Number], default: [] },
    len: { type: Number, required: true },
    impact: { type: Number, required: true },
  },
  { versionKey: false },
);
termSchema.plugin(tenantOwned);
export const TermModel = model('IdapTerm', termSchema, 'idap_terms');

const docTermsSchema = new Schema(
  {
    /** The resource's id. */
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    resource_type: { type: String, enum: RESOURCE_TYPES, required: true },
    /** Its postings as written to idap_terms, without tenant, type and resource id. */
    postings: { type: [Schema.Types.Mixed], default: [] },
  },
  { versionKey: false },
);
docTermsSchema.plugin(tenantOwned);
export const DocTermsModel = model('IdapDocTerms', docTermsSchema, 'idap_doc_terms');

const dfSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    resource_type: { type: String, required: true },
    term: { type: String, required: true },
    df: { type: Number, required: true },
  },
  { versionKey: false },
);
dfSchema.plugin(tenantOwned);
export const TermDfModel = model('IdapTermDf', dfSchema, 'idap_term_df');

const statsSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    resource_type: { type: String, required: true },
    docs: { type: Number, default: 0 },
    /** Summed field lengths in terms, by field name. */
    lengths: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
statsSchema.plugin(tenantOwned);
export const TermStatsModel = model('IdapTermStats', statsSchema, 'idap_term_stats');

export interface TermStats {
  docs: number;
  lengths: Record<string, number>;
}

export async function readStats(clientId: string, type: string): Promise<TermStats> {
  const s = await TermStatsModel.findOne({
    _id: statsId(clientId, type),
    client_id: clientId,
    resource_type: type,
  }).lean<TermStats>();
  return { docs: s?.docs ?? 0, lengths: s?.lengths ?? {} };
}

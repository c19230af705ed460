import { Schema, model } from 'mongoose';
import { RESOURCE_TYPES } from '../resources/resource.model';
import { tenantOwned } from '../../lib/tenancy';

/**
 * The search index of IDAP resources, kept beside them and maintained on every write
 * (resources.service.ts). Four collections, all tenant-owned:
 *
 * - idap_terms: one posting per (term, resource, field) with the term's frequency and positions in
 *   that field, the field's length, and `impact`: the resource's BM25 weight for the term when it was
 *   written, summed over its fields (INDEX_LAYOUT 2; before, each field's own weight). Its _id orders
 *   a term's postings best-first by that weight, a resource's fields side by side, so a search reads a
 *   term's best resources first and stops once no later one can enter its answer (top-k.ts).
 * - idap_doc_terms: per resource, the postings it has in idap_terms (what a re-index replaces).
 * - idap_term_df: the vocabulary with document frequencies per type; prefix matching expands the
 *   last query term with a range over it.
 * - idap_term_stats: per type, how many resources are indexed and the summed length of each field
 *   (BM25's average field length).
 *
 * Every document has an _id derived from what identifies it (tenant, type, term, resource, field),
 * so that maintaining the index is lookups and writes by _id, and reading a term's postings or a
 * prefix's completions is one range of _id: the access paths that every MongoDB-wire engine serves
 * from an index (the devstack's FerretDB serves these from its _id index through its build's patches,
 * tools/devstack/ferretdb/patches).
 */
export const dfId = (clientId: string, type: string, term: string) => `${clientId}|${type}|${term}`;
/**
 * A posting's id is its term's dfId, then its impact rank (best first), then resource and field: a
 * term's postings are one range of _id, in the order a search wants them, so that its best N are the
 * first N of the range on every engine, and resources of equal impact follow each other by id.
 */
export const postingId = (
  clientId: string,
  type: string,
  p: { term: string; impact: number; resource_id: string; field: string },
) => `${dfId(clientId, type, p.term)}|${impactRank(p.impact)}|${p.resource_id}|${p.field}`;

/**
 * How postings are ranked, recorded per tenant and type in idap_term_stats (`layout`). 1: by each field's own
 * weight, 6 digits (1e-4); a resource with the term in two fields had two places in the list. 2: by the
 * resource's weight for the term over all its fields, 10 digits (1e-8), so that the next posting of a list
 * bounds every resource not read yet (top-k.ts). An index is written in layout 2 from its first resource; one
 * from before is re-ranked on first use (rerankIndex).
 */
export const INDEX_LAYOUT = 2;
const RANK_DIGITS = 10;
const RANK_SCALE = 1e8;
const RANK_MAX = 10 ** RANK_DIGITS - 1;
/** 0000000000 for the highest impact (BM25 weights stay far below 100) to 9999999999 for none, fixed width. */
const impactRank = (impact: number) =>
  String(RANK_MAX - Math.max(0, Math.min(RANK_MAX, Math.round(impact * RANK_SCALE)))).padStart(RANK_DIGITS, '0');
/** Layout 1's rank: 000000 to 999999, 1e-4. */
const legacyRank = (impact: number) =>
  String(999_999 - Math.max(0, Math.min(999_999, Math.round(impact * 10_000)))).padStart(6, '0');

/**
 * The _id a posting was written under in `layout` (a resource's forward entry records it): what a re-index deletes
 * when the posting goes, whatever version wrote it.
 */
export const postingIdIn = (
  layout: number,
  clientId: string,
  type: string,
  p: { term: string; impact: number; resource_id: string; field: string },
) =>
  layout >= INDEX_LAYOUT
    ? postingId(clientId, type, p)
    : `${dfId(clientId, type, p.term)}|${legacyRank(p.impact)}|${p.resource_id}|${p.field}`;
/** The highest impact a rank stands for (ranks round impacts to 1e-8). */
export const rankCeiling = (rank: string) => (RANK_MAX - Number(rank) + 0.5) / RANK_SCALE;

/** What a posting's _id says after its term's dfId and `|`: rank, resource and field. */
export function parsePostingId(id: string, termPrefixLength: number): { rank: string; resourceId: string } {
  const rest = id.slice(termPrefixLength);
  const bar = rest.indexOf('|');
  return { rank: rest.slice(0, bar), resourceId: rest.slice(bar + 1, rest.indexOf('|', bar + 1)) };
}
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
    /** The layout its postings' _ids were written in (INDEX_LAYOUT); absent for layout 1. */
    layout: { type: Number },
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
    /** How its postings are ranked (INDEX_LAYOUT); absent for an index written before layout 2. */
    layout: { type: Number },
  },
  { versionKey: false, minimize: false },
);
statsSchema.plugin(tenantOwned);
export const TermStatsModel = model('IdapTermStats', statsSchema, 'idap_term_stats');

export interface TermStats {
  docs: number;
  lengths: Record<string, number>;
}

export interface IndexStats extends TermStats {
  /** INDEX_LAYOUT when every posting is ranked that way; 1 for an index from before (or one being re-ranked). */
  layout: number;
}

export async function readIndexStats(clientId: string, type: string): Promise<IndexStats> {
  const s = await TermStatsModel.findOne({
    _id: statsId(clientId, type),
    client_id: clientId,
    resource_type: type,
  }).lean<Partial<IndexStats>>();
  return { docs: s?.docs ?? 0, lengths: s?.lengths ?? {}, layout: s?.docs ? (s.layout ?? 1) : INDEX_LAYOUT };
}

export async function readStats(clientId: string, type: string): Promise<TermStats> {
  const { docs, lengths } = await readIndexStats(clientId, type);
  return { docs, lengths };
}

import type { AnyBulkWriteOperation } from 'mongoose';
import { bulkWriteErrors, insertReportingDuplicates } from '../../lib/bulk-writes';
import { isDuplicateKeyError } from '../../lib/errors';
import type { RunLocked } from '../../lib/locks';
import { ResourceModel, type ResourceType } from '../resources/resource.model';
import { fieldLengths, postingsKey, postingsOf, termsOf, type Posting } from './postings';
import { groupBy } from '../../lib/arrays';
import { idBatches } from '../../lib/id-batches';
import type { TypeChange } from './index-changes';
import {
  DocTermsModel,
  INDEX_LAYOUT,
  TermDfModel,
  TermModel,
  TermStatsModel,
  dfId,
  postingId,
  postingIdIn,
  statsId,
  type IndexStats,
  type TermStats,
} from './search-index.model';

export const indexLockName = (clientId: string, type: ResourceType) => `idap-index:${statsId(clientId, type)}`;

type StoredPostings = Omit<Posting, 'resource_id'>[];

/** What the index holds and what is stored, for the resources of one step, read for all its types at once. */
interface IndexState {
  data: Map<string, Record<string, unknown>>;
  postings: Map<string, StoredPostings>;
  layouts: Map<string, number>;
  stats: Map<ResourceType, IndexStats>;
}

/** What one type's part of a step writes (planType), applied with the other types' in shared statements. */
interface TypePlan {
  type: ResourceType;
  /** Resources whose postings change. */
  changed: string[];
  /** Postings to insert (new _id), and the _ids of stale postings to delete once they are in. */
  inserts: Posting[];
  gone: string[];
  /** Forward entries: first ones (inserted), and changes to existing ones (replaced, or deleted when empty). */
  firstEntries: Record<string, unknown>[];
  entryIds: string[];
  entryOf: (id: string) => Record<string, unknown> | null;
  /** Document frequency changes by term, and the stats' increments. */
  df: [term: string, delta: number][];
  statsUpdate: Record<string, unknown>;
  terms: string[];
}

/**
 * Brings the index up to date with what is stored for `refs`, every type in one step: the step reads the
 * resources, their forward entries and the types' statistics in one statement each, and writes each kind of
 * index row for all its types in one statement (a statement costs a round trip to the store whatever its size,
 * and a job's resources are of three types). The types' locks are taken in one order (by name), so steps over
 * several types never wait on each other in a cycle. Answers what changed, per type.
 */
export async function indexTypes(
  clientId: string,
  refs: { type: ResourceType; id: string }[],
  lock: RunLocked,
  opts: { rerank?: boolean } = {},
): Promise<TypeChange[]> {
  const byType = new Map<ResourceType, Set<string>>();
  for (const r of refs) byType.set(r.type, (byType.get(r.type) ?? new Set()).add(r.id));
  if (!byType.size) return [];
  const types = [...byType.keys()].sort();
  const step = async () => {
    const ids = new Map(types.map((t) => [t, [...byType.get(t)!]]));
    const state = await readState(clientId, ids);
    const plans = types
      .map((type) => planType(clientId, type, ids.get(type)!, state, opts.rerank ?? false))
      .filter((p): p is TypePlan => p !== null);
    await applyPlans(clientId, plans);
    return plans.map((p): TypeChange => ({ type: p.type, resources: p.changed, terms: p.terms }));
  };
  const locked = types.reduceRight<() => Promise<TypeChange[]>>(
    (inner, type) => () => lock(indexLockName(clientId, type), inner),
    step,
  );
  return locked();
}

async function readState(clientId: string, ids: Map<ResourceType, string[]>): Promise<IndexState> {
  const types = [...ids.keys()];
  const all = [...ids.values()].flat();
  const scope = { client_id: clientId, resource_type: { $in: types } };
  const [docs, indexed, stats] = await Promise.all([
    Promise.all(
      idBatches(all).map((part) =>
        ResourceModel.find({ ...scope, _id: { $in: part } }, { data: 1 }).lean<
          { _id: string; data: Record<string, unknown> }[]
        >(),
      ),
    ),
    Promise.all(
      idBatches(all).map((part) =>
        DocTermsModel.find({ ...scope, _id: { $in: part } }, { postings: 1, layout: 1 }).lean<
          { _id: string; postings: StoredPostings; layout?: number }[]
        >(),
      ),
    ),
    TermStatsModel.find({ ...scope, _id: { $in: types.map((t) => statsId(clientId, t)) } }).lean<
      (Partial<IndexStats> & { resource_type: ResourceType })[]
    >(),
  ]);
  const statsOf = (type: ResourceType): IndexStats => {
    const s = stats.find((x) => x.resource_type === type);
    return { docs: s?.docs ?? 0, lengths: s?.lengths ?? {}, layout: s?.docs ? (s.layout ?? 1) : INDEX_LAYOUT };
  };
  return {
    data: new Map(docs.flat().map((d) => [d._id, d.data ?? {}])),
    postings: new Map(indexed.flat().map((d) => [d._id, d.postings ?? []])),
    layouts: new Map(indexed.flat().map((d) => [d._id, d.layout ?? 1])),
    stats: new Map(types.map((t) => [t, statsOf(t)])),
  };
}

/**
 * One type's part of a step. Impacts (what ranks a posting) are computed with the statistics as they are once
 * this step's changes are counted, so that a repeat of the step finds the same ranks and rewrites nothing.
 * Null when nothing changes.
 */
function planType(
  clientId: string,
  type: ResourceType,
  ids: string[],
  state: IndexState,
  rerank: boolean,
): TypePlan | null {
  const scope = { client_id: clientId, resource_type: type };
  const before = state.stats.get(type)!;
  const oldOf = (id: string) => state.postings.get(id) ?? [];
  const oldIds = (id: string) =>
    oldOf(id).map((p) => postingIdIn(state.layouts.get(id)!, clientId, type, { ...p, resource_id: id }));
  const postingsWith = (id: string, stats: TermStats) =>
    state.data.has(id) ? postingsOf(type, id, state.data.get(id)!, stats) : [];
  const idsOf = (id: string, postings: StoredPostings) =>
    postings.map((p) => postingId(clientId, type, { ...p, resource_id: id }));
  const df = new Map<string, number>();
  const lengths = new Map<string, number>();
  let docsDelta = 0;
  const add = <K>(m: Map<K, number>, k: K, d: number) => m.set(k, (m.get(k) ?? 0) + d);
  const textChanged = new Set<string>();
  for (const id of ids) {
    const was = oldOf(id);
    const after = postingsWith(id, before);
    if (postingsKey(was) === postingsKey(after)) continue;
    textChanged.add(id);
    for (const t of termsOf(after)) add(df, t, 1);
    for (const t of termsOf(was)) add(df, t, -1);
    for (const [f, len] of fieldLengths(after)) add(lengths, f, len);
    for (const [f, len] of fieldLengths(was)) add(lengths, f, -len);
    docsDelta += Number(after.length > 0) - Number(was.length > 0);
  }
  const stats: TermStats = { docs: before.docs + docsDelta, lengths: { ...before.lengths } };
  for (const [f, d] of lengths) stats.lengths[f] = (stats.lengths[f] ?? 0) + d;
  const changed: string[] = [];
  const rows: Posting[] = [];
  const staleRows: string[] = [];
  for (const id of ids) {
    if (!textChanged.has(id) && !rerank) continue;
    const after = postingsWith(id, stats);
    if (!textChanged.has(id) && oldIds(id).sort().join() === idsOf(id, after).sort().join()) continue;
    changed.push(id);
    rows.push(...after);
    staleRows.push(...oldIds(id));
  }
  if (!changed.length) return null;
  // Rows kept with the same _id (a resource whose rank and text did not change) are neither deleted nor inserted.
  const fresh = new Set(rows.map((r) => postingId(clientId, type, r)));
  const kept = new Set(staleRows);
  const byResource = groupBy(rows, (p) => p.resource_id);
  const entryOf = (id: string) =>
    byResource.has(id)
      ? {
          _id: id,
          ...scope,
          postings: byResource.get(id)!.map(({ resource_id: _, ...p }) => p),
          layout: INDEX_LAYOUT,
        }
      : null;
  const inc: Record<string, number> = { docs: docsDelta };
  for (const [f, d] of lengths) if (d) inc[`lengths.${f}`] = d;
  return {
    type,
    changed,
    inserts: rows.filter((r) => !kept.has(postingId(clientId, type, r))),
    gone: staleRows.filter((id) => !fresh.has(id)),
    firstEntries: changed.filter((id) => byResource.has(id) && !state.postings.has(id)).map((id) => entryOf(id)!),
    entryIds: changed.filter((id) => state.postings.has(id)),
    entryOf,
    df: [...df].filter(([, d]) => d !== 0),
    // An index begun in this layout is in it whole; one from before is brought to it by rerankIndex.
    statsUpdate: before.docs === 0 ? { $inc: inc, $set: { layout: INDEX_LAYOUT } } : { $inc: inc },
    terms: [...new Set([...rows.map((r) => r.term), ...changed.flatMap((id) => oldOf(id).map((p) => p.term))])],
  };
}

/**
 * The plans' writes, each kind in one statement for every type, in the order a search and a repeat rely on: new
 * postings go in before stale ones go (a search meanwhile finds a resource once or twice, never not at all), then
 * the forward entries, the document frequencies and last the statistics. New entries and new terms are inserted
 * (on FerretDB an upsert costs a statement per document); a step retried after a crash finds them written
 * already and updates them instead.
 */
async function applyPlans(clientId: string, plans: TypePlan[]): Promise<void> {
  if (!plans.length) return;
  const base = { client_id: clientId };
  const inserts = plans.flatMap((p) =>
    p.inserts.map((r) => ({ _id: postingId(clientId, p.type, r), ...base, resource_type: p.type, ...r })),
  );
  if (inserts.length) {
    // A step retried after a crash finds some of its postings written already: the _id keeps one copy.
    await TermModel.insertMany(inserts, { ordered: false, lean: true }).catch((err) => {
      if (!allDuplicates(err)) throw err;
    });
  }
  for (const part of idBatches(plans.flatMap((p) => p.gone)))
    await TermModel.deleteMany({ ...base, _id: { $in: part } });

  const firstEntries = plans.flatMap((p) => p.firstEntries);
  const retried = new Set((await insertReportingDuplicates(DocTermsModel, firstEntries)).map((i) => firstEntries[i]));
  const entryOps = plans.flatMap((p) =>
    [...p.entryIds, ...p.firstEntries.filter((e) => retried.has(e)).map((e) => e._id as string)].map((id) => {
      const entry = p.entryOf(id);
      const filter = { _id: id, ...base, resource_type: p.type };
      return entry ? { replaceOne: { filter, replacement: entry, upsert: true } } : { deleteOne: { filter } };
    }),
  );
  if (entryOps.length) await DocTermsModel.bulkWrite(entryOps as never, { ordered: false });

  const deltas = plans.flatMap((p) =>
    p.df.map(([term, d]) => ({ type: p.type, term, d, id: dfId(clientId, p.type, term) })),
  );
  const known = new Set(
    (
      await Promise.all(
        idBatches(deltas).map((part) =>
          TermDfModel.find({ ...base, _id: { $in: part.map((x) => x.id) } }, { _id: 1 }).lean<{ _id: string }[]>(),
        ),
      )
    )
      .flat()
      .map((v) => v._id),
  );
  const newTerms = deltas.filter((x) => !known.has(x.id) && x.d > 0);
  const lost = await insertReportingDuplicates(
    TermDfModel,
    newTerms.map((x) => ({ _id: x.id, ...base, resource_type: x.type, term: x.term, df: x.d })),
  );
  const dfOps = [...deltas.filter((x) => known.has(x.id)), ...lost.map((i) => newTerms[i])].map((x) => ({
    updateOne: {
      filter: { _id: x.id, ...base, resource_type: x.type, term: x.term },
      update: { $inc: { df: x.d } },
      upsert: true,
    },
  }));
  await bulkUpsert(TermDfModel, dfOps);
  for (const part of idBatches(deltas.filter((x) => x.d < 0).map((x) => x.id)))
    await TermDfModel.deleteMany({ ...base, _id: { $in: part }, df: { $lte: 0 } });

  await bulkUpsert(
    TermStatsModel,
    plans.map((p) => ({
      updateOne: {
        filter: { _id: statsId(clientId, p.type), ...base, resource_type: p.type },
        update: p.statsUpdate,
        upsert: true,
      },
    })),
  );
}

/**
 * An unordered bulk of upserts; the ones that lost a race to insert the same new key (duplicate key)
 * are run once more, now as plain updates of the document the other writer created.
 */
async function bulkUpsert(
  model: { bulkWrite(ops: never, opts: object): Promise<unknown> },
  ops: AnyBulkWriteOperation[],
): Promise<void> {
  if (!ops.length) return;
  try {
    await model.bulkWrite(ops as never, { ordered: false });
  } catch (err) {
    if (!allDuplicates(err)) throw err;
    await model.bulkWrite(bulkWriteErrors(err).map((e) => ops[e.index]) as never, { ordered: false });
  }
}

/** A bulk write whose only failures are duplicate keys. */
export function allDuplicates(err: unknown): boolean {
  const failed = bulkWriteErrors(err);
  return failed.length > 0 && failed.every((e) => isDuplicateKeyError({ code: e.code, message: e.errmsg }));
}

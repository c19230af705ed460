import { chunksOf, groupBy } from '../../lib/arrays';
import type { RunLocked } from '../../lib/locks';
import {
  JobResourceModel,
  RESOURCE_TYPES,
  ResourceModel,
  idapRef,
  jobResourceId,
  jobResourcesOf,
  resourceId,
  type ResourceType,
} from './resource.model';
import { updateResources } from './stamped-writes';
import { announceChanges } from '../search/index-changes';
import { allDuplicates, indexLockName, indexTypes } from '../search/index-writes';
import { DocTermsModel, INDEX_LAYOUT, TermStatsModel, statsId } from '../search/search-index.model';

/** The resource types, for the areas that ask about resources (a watch's run counts its new ones). */
export type { ResourceType } from './resource.model';

/** One resource to write, as the jobs area finds it. */
export interface ResourceInput {
  type: ResourceType;
  /** What identifies the thing in the real world (place id, domain, e-mail address...). */
  naturalKey: string;
  data: Record<string, unknown>;
  /** Replaces the flags when given; a new resource gets `new` otherwise. */
  flags?: string[];
  /** idap refs of related resources (added to the set). */
  related?: string[];
  sourceJobId?: string;
}

/**
 * Writes resources in one bulk upsert and brings the search index up to date with what was stored.
 * Idempotent: ids are derived from (tenant, type, natural key), `data` fields are set one by one
 * (so two jobs that know different fields of a resource both keep theirs; null/undefined never
 * overwrite), `related` and `source_job_ids` only grow; `modified_at` moves only for the resources
 * whose data, flags or related refs changed (stamped-writes.ts). Answers once every process's read
 * cache has dropped what the write changed (index-changes.ts).
 */
export async function upsertResources(
  clientId: string,
  items: ResourceInput[],
  lock: RunLocked,
): Promise<{ ids: string[] }> {
  const ids = items.map((i) => resourceId(clientId, i.type, i.naturalKey));
  const ops = items.map((item, n) => {
    const set: Record<string, unknown> = { resource_type: item.type };
    for (const [k, v] of Object.entries(item.data)) if (v !== undefined && v !== null) set[`data.${k}`] = v;
    const onInsert: Record<string, unknown> = Object.keys(set).length > 1 ? {} : { data: {} };
    if (item.flags) set.flags = [...new Set(item.flags)];
    else onInsert.flags = ['new'];
    if (item.sourceJobId) onInsert.first_seen_job_id = item.sourceJobId;
    const addToSet: Record<string, unknown> = {};
    const related = [...new Set(item.related ?? [])].filter((r) => r !== idapRef(item.type, ids[n]));
    if (related.length) addToSet.related = { $each: related };
    if (item.sourceJobId) addToSet.source_job_ids = item.sourceJobId;
    const update: Record<string, unknown> = { $set: set };
    if (Object.keys(onInsert).length) update.$setOnInsert = onInsert;
    if (Object.keys(addToSet).length) update.$addToSet = addToSet;
    return { updateOne: { filter: { _id: ids[n], client_id: clientId }, update, upsert: true } };
  });
  await updateResources(ops);
  const ledger = items.flatMap((item, n) =>
    item.sourceJobId ? [{ _id: jobResourceId(item.sourceJobId, item.type, ids[n]), client_id: clientId }] : [],
  );
  if (ledger.length) {
    await JobResourceModel.insertMany(ledger, { ordered: false, lean: true }).catch((err) => {
      if (!allDuplicates(err)) throw err;
    });
  }
  await resourcesChanged(
    clientId,
    items.map((i, n) => ({ type: i.type, id: ids[n] })),
    lock,
  );
  return { ids };
}

/**
 * What every write to resources ends with, whatever it changed (data, flags, related): the search index brought
 * up to date with what is stored (indexResources), then every process's read cache told to drop the tenant's
 * types it holds (index-changes.ts). A write path that cannot index at once (a job: its follow-up workflow
 * indexes) calls announceChanges itself and indexResources later, which announces again.
 */
export async function resourcesChanged(
  clientId: string,
  refs: { type: ResourceType; id: string }[],
  lock: RunLocked,
): Promise<void> {
  const indexed = await indexTypes(clientId, refs, lock);
  const byType = [...groupBy(refs, (r) => r.type)].map(([type, of]) => ({ type, resources: of.map((r) => r.id) }));
  await announceChanges(clientId, [...indexed, ...byType]);
}

/**
 * Every resource a job wrote (or found again), as refs for indexResources: businesses first (what a user searches
 * for after a job), then the other types, each type together. From the job's entries in idap_job_resources; a job
 * that wrote before those existed (one running across the upgrade that added them) is read from the resources'
 * `source_job_ids`, as before.
 */
export async function resourcesOfJob(clientId: string, jobId: string): Promise<{ type: ResourceType; id: string }[]> {
  const entries = await JobResourceModel.find(jobResourcesOf(clientId, jobId), { _id: 1 }).lean<{ _id: string }[]>();
  const refs = entries.map((e) => {
    const [type, id] = e._id.slice(jobId.length + 1).split('/');
    return { type: type as ResourceType, id };
  });
  if (!refs.length) {
    const docs = await ResourceModel.find(
      { client_id: clientId, source_job_ids: jobId },
      { _id: 1, resource_type: 1 },
    ).lean<{ _id: string; resource_type: ResourceType }[]>();
    refs.push(...docs.map((d) => ({ type: d.resource_type, id: d._id })));
  }
  const order = (t: ResourceType) => RESOURCE_TYPES.indexOf(t);
  return refs.sort((a, b) => order(a.type) - order(b.type));
}

/**
 * The resources of `types` a job created (it saw them first: no job of the tenant had written them before): how
 * many, and the refs of the first `limit` of them in the order they were written.
 */
export async function firstSeenBy(
  clientId: string,
  jobId: string,
  types: readonly ResourceType[],
  limit: number,
): Promise<{ count: number; refs: string[] }> {
  const filter = { client_id: clientId, first_seen_job_id: jobId, resource_type: { $in: [...types] } };
  const [count, docs] = await Promise.all([
    ResourceModel.countDocuments(filter),
    ResourceModel.find(filter, { _id: 1, resource_type: 1 })
      .sort({ created_at: 1, _id: 1 })
      .limit(limit)
      .lean<{ _id: string; resource_type: ResourceType }[]>(),
  ]);
  return { count, refs: docs.map((d) => idapRef(d.resource_type, d._id)) };
}

/**
 * Re-indexes resources from what is stored now; every process's read cache then drops the types whose index
 * changed. Every write to a resource's searchable data must be followed by this (resourcesChanged does it).
 * It converges: running it again after a crash, or for a resource that did not change, rewrites nothing; a
 * resource that no longer exists leaves the index. Each step compares what a resource has in the index with
 * what it should have and applies the difference to shared counts, so two steps over one tenant's type must
 * not interleave (both would count the same change): `lock` makes them take turns, in every process.
 * `rerank` also rewrites the postings of resources whose data did not change but whose rank would (rerankIndex).
 */
export async function indexResources(
  clientId: string,
  refs: { type: ResourceType; id: string }[],
  lock: RunLocked,
  opts: { rerank?: boolean } = {},
): Promise<void> {
  await announceChanges(clientId, await indexTypes(clientId, refs, lock, opts));
}

/**
 * Brings an index written before INDEX_LAYOUT 2 (postings ranked by each field's weight) to ranking by the
 * resource's weight over its fields, which lets a search stop early: every resource of the type (and any the index
 * still holds without one) re-indexed with `rerank`, 100 at a time in order of id, each step taking turns with the
 * other index writers, then the layout recorded. Writers in the meantime write layout 2 already; searches meanwhile
 * read the old ranks without stopping early (top-k.ts). `progress` is called after each step with the last id done:
 * a run started again with `after` set to it goes on from there (a step done twice rewrites nothing). Answers how
 * many resources the index has.
 */
export async function rerankIndex(
  clientId: string,
  type: ResourceType,
  lock: RunLocked,
  opts: { after?: string; progress?: (step: RerankProgress) => unknown } = {},
): Promise<number> {
  const scope = { client_id: clientId, resource_type: type };
  const [stored, indexed] = await Promise.all([
    ResourceModel.find(scope, { _id: 1 }).lean<{ _id: string }[]>(),
    DocTermsModel.find(scope, { _id: 1 }).lean<{ _id: string }[]>(),
  ]);
  const ids = [...new Set([...stored, ...indexed].map((d) => d._id))].sort();
  const start = opts.after === undefined ? 0 : ids.findIndex((id) => id > opts.after!);
  const rest = start < 0 ? [] : ids.slice(start);
  let done = ids.length - rest.length;
  for (const step of chunksOf(rest, RERANK_CHUNK)) {
    await indexTypes(
      clientId,
      step.map((id) => ({ type, id })),
      lock,
      { rerank: true },
    );
    done += step.length;
    await opts.progress?.({ after: step[step.length - 1], done, of: ids.length });
  }
  await lock(indexLockName(clientId, type), () =>
    TermStatsModel.updateOne({ _id: statsId(clientId, type), ...scope }, { $set: { layout: INDEX_LAYOUT } }),
  );
  await announceChanges(clientId, [type]);
  return ids.length;
}

/** How far a re-rank has come: the last resource id done, and how many of how many resources. */
export interface RerankProgress {
  after: string;
  done: number;
  of: number;
}

const RERANK_CHUNK = 100;

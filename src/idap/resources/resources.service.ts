import { groupBy } from '../../lib/arrays';
import type { RunLocked } from '../../lib/locks';
import { announceChanges } from '../search/index-changes';
import { indexTypes } from '../search/index-writes';
import {
  JobResourceModel,
  RESOURCE_TYPES,
  ResourceModel,
  idapRef,
  jobResourcesOf,
  type ResourceType,
} from './resource.model';

/** The resource types, for the areas that ask about resources (a watch's run counts its new ones). */
export type { ResourceType } from './resource.model';

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

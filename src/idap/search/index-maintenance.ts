import { chunksOf } from '../../lib/arrays';
import type { RunLocked } from '../../lib/locks';
import { ResourceModel, type ResourceType } from '../resources/resource.model';
import { announceChanges } from './index-changes';
import { indexLockName, indexTypes } from './index-writes';
import { DocTermsModel, INDEX_LAYOUT, TermStatsModel, statsId } from './search-index.model';

/**
 * Re-indexes resources from what is stored now; every process's read cache then drops the types whose index
 * changed. Every write to a resource's searchable data must be followed by this (resources.service.ts's resourcesChanged does it).
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

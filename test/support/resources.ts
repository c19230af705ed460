import { idBatches } from '../../src/lib/id-batches';
import type { RunLocked } from '../../src/lib/locks';
import { changeFlags } from '../../src/idap/resources/flags';
import { ResourceModel, type ResourceType } from '../../src/idap/resources/resource.model';
import { resourceWrite, writeResources } from '../../src/idap/resources/resource-writes';
import { indexResources } from '../../src/idap/search/index-maintenance';

/** A resource to seed: what a job found of it, and the flags a user gave it since (none: `new`, as a job leaves it). */
export interface SeedResource {
  type: ResourceType;
  /** What identifies the thing in the real world (place id, domain, e-mail address...). */
  naturalKey: string;
  data: Record<string, unknown>;
  /** idap refs of related resources (added to the set). */
  related?: string[];
  /** The job that found it; SEED_JOB_ID when none is named. */
  sourceJobId?: string;
  /** The flags it ends with, as the flags API sets them. */
  flags?: string[];
}

/** The job resources seeded without one are written by (production writes every resource for a job). */
export const SEED_JOB_ID = 'seed-job';

/**
 * Writes resources by production's own path, in its order: writeResources (a job's write: every process's cache
 * told), indexResources (the job's index feed or follow-up workflow), then each resource's flags through
 * changeFlags (the flags API's change: a new stamp, the index's maintenance). Answers the ids and refs, in the order
 * of `items`.
 */
export async function seedResources(
  clientId: string,
  items: SeedResource[],
  lock: RunLocked,
): Promise<{ ids: string[]; refs: string[] }> {
  const writes = items.map((i) =>
    resourceWrite(clientId, i.type, i.naturalKey, i.data, { jobId: i.sourceJobId ?? SEED_JOB_ID, related: i.related }),
  );
  await writeResources(writes);
  await indexResources(
    clientId,
    writes.map((w) => ({ type: w.type, id: w.id })),
    lock,
  );
  await setFlags(
    clientId,
    items.flatMap((item, n) => (item.flags ? [{ id: writes[n].id, ref: writes[n].ref, flags: item.flags }] : [])),
    lock,
  );
  return { ids: writes.map((w) => w.id), refs: writes.map((w) => w.ref) };
}

/** Each resource's flags made `flags` by the change from what it has: one changeFlags per distinct change. */
async function setFlags(clientId: string, wanted: { id: string; ref: string; flags: string[] }[], lock: RunLocked) {
  const current = new Map<string, string[]>();
  for (const part of idBatches(wanted.map((w) => w.id))) {
    const docs = await ResourceModel.find({ client_id: clientId, _id: { $in: part } }, { flags: 1 }).lean<
      { _id: string; flags: string[] }[]
    >();
    for (const d of docs) current.set(d._id, d.flags);
  }
  const changes = new Map<string, { add: string[]; remove: string[]; refs: string[] }>();
  for (const w of wanted) {
    const now = current.get(w.id) ?? [];
    const add = w.flags.filter((f) => !now.includes(f));
    const remove = now.filter((f) => !w.flags.includes(f));
    if (!add.length && !remove.length) continue;
    const key = JSON.stringify([add, remove]);
    const change = changes.get(key) ?? { add, remove, refs: [] };
    change.refs.push(w.ref);
    changes.set(key, change);
  }
  for (const { add, remove, refs } of changes.values()) {
    for (const part of idBatches(refs)) {
      const outcome = await changeFlags(clientId, part, { add, remove }, lock);
      if (Object.keys(outcome.errors).length)
        throw new Error(`seeding flags failed: ${JSON.stringify(outcome.errors)}`);
    }
  }
}

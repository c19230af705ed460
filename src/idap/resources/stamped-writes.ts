import { isDeepStrictEqual } from 'node:util';
import type { AnyBulkWriteOperation } from 'mongoose';
import { groupBy } from '../../lib/arrays';
import { idBatches } from '../../lib/id-batches';
import { ResourceModel } from './resource.model';

/**
 * The rules every write of a resource keeps so that a sync (sync.ts) loses nothing and repeats nothing unchanged
 * (the argument is in docs/idap.md, "Why a sync loses nothing"):
 * - `modified_at` changes exactly when what a reader sees of the resource does (its data, flags or related refs),
 *   never for a write that changes none of them (a job finding the same business again);
 * - it only moves forward (`$max`), whatever the writer's clock says, so a resource never moves back behind a
 *   reader that passed it;
 * - a write is acknowledged within RESOURCE_WRITE_BUDGET_MS of its stamp, or the resources it changed are stamped
 *   again (forward) until a stamp's write is: a sync reads IDAP_SYNC_SETTLE_MS behind now, longer than that.
 */
export const RESOURCE_WRITE_BUDGET_MS = 1000;
/** Stamps again at most this many times (each a small write by _id); past them the write stands as it is. */
const MAX_RESTAMPS = 5;

export interface ResourceKey {
  clientId: string;
  id: string;
}

/**
 * Runs `write` with a stamp for the `modified_at` (and `created_at`) of what it changes, taken just before it, and
 * keeps the budget: when its acknowledgement came later than RESOURCE_WRITE_BUDGET_MS after the stamp, the resources
 * it changed are stamped again, until one restamp is acknowledged in time.
 */
export async function stampedWrite<T>(
  write: (stamp: Date) => Promise<{ result: T; changed: ResourceKey[] }>,
): Promise<T> {
  let stamp = new Date();
  const { result, changed } = await write(stamp);
  for (let n = 0; n < MAX_RESTAMPS && changed.length && Date.now() - stamp.getTime() > RESOURCE_WRITE_BUDGET_MS; n++) {
    stamp = new Date();
    await restamp(changed, stamp);
  }
  return result;
}

async function restamp(keys: ResourceKey[], stamp: Date): Promise<void> {
  for (const [clientId, ofClient] of groupBy(keys, (k) => k.clientId)) {
    const ids = [...new Set(ofClient.map((k) => k.id))];
    for (const part of idBatches(ids)) {
      await ResourceModel.updateMany(
        { client_id: clientId, _id: { $in: part } },
        { $max: { modified_at: stamp } },
        { timestamps: false },
      );
    }
  }
}

/** What a reader sees of a resource besides its stamps. */
interface Visible {
  data: Record<string, unknown>;
  flags: string[];
  related: string[];
}

const VISIBLE_FIELDS = ['data', 'flags', 'related'] as const;

interface UpdateDoc {
  $set?: Record<string, unknown>;
  $setOnInsert?: Record<string, unknown>;
  $addToSet?: Record<string, unknown>;
}

interface ResourceUpdate {
  clientId: string;
  id: string;
  update: UpdateDoc;
  upsert: boolean;
}

/** The one shape of update the write paths make: one resource by (_id, client_id), with $set, $setOnInsert, $addToSet. */
function resourceUpdateOf(op: AnyBulkWriteOperation): ResourceUpdate {
  const one = (op as { updateOne?: { filter: Record<string, unknown>; update: UpdateDoc; upsert?: boolean } })
    .updateOne;
  const filterKeys = one ? Object.keys(one.filter).sort().join() : '';
  const operators = one ? Object.keys(one.update) : [];
  if (
    !one ||
    filterKeys !== '_id,client_id' ||
    typeof one.filter._id !== 'string' ||
    typeof one.filter.client_id !== 'string' ||
    operators.some((o) => !['$set', '$setOnInsert', '$addToSet'].includes(o))
  ) {
    throw new Error('a resource update is an updateOne by _id and client_id with $set, $setOnInsert or $addToSet');
  }
  return { clientId: one.filter.client_id, id: one.filter._id, update: one.update, upsert: Boolean(one.upsert) };
}

/** Whether a `$set` or `$addToSet` path is part of what a reader sees. */
const visiblePath = (path: string) => VISIBLE_FIELDS.some((f) => path === f || path.startsWith(`${f}.`));

/**
 * A deep copy of JSON-like data (objects, arrays, dates). Not structuredClone: its copies come from the host's realm,
 * and isDeepStrictEqual then tells them apart from equal objects of this one (Jest's sandbox is another realm).
 */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)])) as T;
  return value;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const parts = path.split('.');
  let at = target;
  for (const p of parts.slice(0, -1)) {
    if (typeof at[p] !== 'object' || at[p] === null) at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]] = copy(value);
}

/** `update` applied to `doc` (undefined: absent) as MongoDB would, for the visible fields only. */
function applied(doc: Visible | undefined, u: ResourceUpdate): Visible | undefined {
  if (!doc && !u.upsert) return undefined;
  const next = copy(doc ?? { data: {}, flags: [], related: [] }) as Visible & Record<string, unknown>;
  const sets = [...Object.entries(u.update.$set ?? {}), ...(doc ? [] : Object.entries(u.update.$setOnInsert ?? {}))];
  for (const [path, value] of sets) if (visiblePath(path)) setPath(next, path, value);
  for (const [field, value] of Object.entries(u.update.$addToSet ?? {})) {
    if (!visiblePath(field)) continue;
    const list = (next[field] as unknown[] | undefined) ?? [];
    const each = (value as { $each?: unknown[] })?.$each ?? [value];
    for (const v of each) if (!list.some((x) => isDeepStrictEqual(x, v))) list.push(v);
    next[field] = list;
  }
  return next;
}

/** The update without what a reader sees (what stays: `source_job_ids`); null when nothing stays. */
function withoutVisible(update: UpdateDoc): UpdateDoc | null {
  const $addToSet = Object.fromEntries(Object.entries(update.$addToSet ?? {}).filter(([f]) => !visiblePath(f)));
  return Object.keys($addToSet).length ? { $addToSet } : null;
}

/**
 * Applies updates of existing or new resources (updateOne by _id and client_id, with $set, $setOnInsert, $addToSet;
 * unordered) so that a sync sees exactly the resources whose visible state they change: those are stamped
 * (`modified_at` forward, `created_at` when inserted) within the write budget; for the others only what no reader
 * sees is written (`source_job_ids`), and `modified_at` stays. Which is which is judged on the resources as read just
 * before: a resource another writer changes meanwhile is stamped by that writer, so judging on what was read can at
 * worst stamp one that did not need it. Answers the resources that were stamped.
 */
export async function updateResources(ops: AnyBulkWriteOperation[]): Promise<ResourceKey[]> {
  const updates = ops.map(resourceUpdateOf);
  if (!updates.length) return [];
  const before = await readVisible(updates);
  const after = new Map(before);
  for (const u of updates) {
    const key = `${u.clientId}|${u.id}`;
    after.set(key, applied(after.get(key), u));
  }
  const changed = new Set([...after].filter(([key, v]) => !isDeepStrictEqual(v, before.get(key))).map(([k]) => k));
  return stampedWrite(async (stamp) => {
    const writes = updates.flatMap((u): AnyBulkWriteOperation[] => {
      const isChanged = changed.has(`${u.clientId}|${u.id}`);
      const update = isChanged
        ? {
            ...u.update,
            $max: { modified_at: stamp },
            ...(u.upsert ? { $setOnInsert: { ...u.update.$setOnInsert, created_at: stamp } } : {}),
          }
        : withoutVisible(u.update);
      if (!update) return [];
      const filter = { _id: u.id, client_id: u.clientId };
      return [{ updateOne: { filter, update, upsert: isChanged && u.upsert, timestamps: false } }];
    });
    if (writes.length) await ResourceModel.bulkWrite(writes as never, { ordered: false, timestamps: false });
    const keys = [...changed].map((k) => {
      const [clientId, id] = k.split('|');
      return { clientId, id };
    });
    return { result: keys, changed: keys };
  });
}

/** The visible state of the resources `updates` name, keyed `client|id` (absent ones undefined). */
async function readVisible(updates: ResourceUpdate[]): Promise<Map<string, Visible | undefined>> {
  const out = new Map<string, Visible | undefined>(updates.map((u) => [`${u.clientId}|${u.id}`, undefined]));
  for (const [clientId, ofClient] of groupBy(updates, (u) => u.clientId)) {
    const ids = [...new Set(ofClient.map((u) => u.id))];
    for (const part of idBatches(ids)) {
      const docs = await ResourceModel.find(
        { client_id: clientId, _id: { $in: part } },
        { data: 1, flags: 1, related: 1 },
      ).lean<({ _id: string } & Partial<Visible>)[]>();
      for (const d of docs)
        out.set(`${clientId}|${d._id}`, { data: d.data ?? {}, flags: d.flags ?? [], related: d.related ?? [] });
    }
  }
  return out;
}

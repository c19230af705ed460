import type { ActivityActor, ActivityInput } from '../../activity/recorder';
import { groupBy } from '../../lib/arrays';
import type { Schemas } from '../../lib/contract-types';
import { AppError } from '../../lib/errors';
import type { RunLocked } from '../../lib/locks';
import { ResourceModel, idapRef, type ResourceType } from './resource.model';
import { resourcesChanged } from './resources.service';
import { RESOURCE_NOT_FOUND, csv, parseRef } from './refs';
import { stampedWrite } from './stamped-writes';
import { resourceView, type ResourceView, type StoredResource } from './view';

/**
 * A resource's flags: `new` (a job found it first), `qualified` and `rejected` (the interface's), and the tenant's
 * own lower-case tags; `rejected` keeps it out of search. A change adds and removes flags; `qualified` and `rejected`
 * exclude each other. Each change is written only if the resource's flags are still what it was computed from
 * (optimistic: a concurrent change makes it read and compute again), so none is lost and the limits hold.
 */
export const MAX_FLAGS = 16;
const EXCLUSIVE: Record<string, string> = { qualified: 'rejected', rejected: 'qualified' };
/** Rounds of read, compute and conditional write before a resource whose flags keep changing is given up. */
const ROUNDS = 5;
export const TOO_MANY_FLAGS = 'too_many_flags';
export const FLAGS_CONFLICT = 'flags_conflict';

/** `flags` as search and the list read it: a name requires the flag, `!name` excludes it. */
export function parseFlagFilter(flags: string | undefined): { require: string[]; exclude: string[] } {
  const names = csv(flags);
  return {
    require: names.filter((f) => !f.startsWith('!')),
    exclude: names
      .filter((f) => f.startsWith('!'))
      .map((f) => f.slice(1))
      .filter(Boolean),
  };
}

export type FlagChange = Schemas['FlagChange'];

/** The change as sets; 422 when it names no flag, a flag in both lists, or both of an exclusive pair to add. */
function checked(change: FlagChange): { add: string[]; remove: string[] } {
  const add = [...new Set(change.add ?? [])];
  const remove = [...new Set(change.remove ?? [])];
  const invalid = (field: string, message: string) => AppError.invalid(message, [{ location: 'body', field, message }]);
  if (!add.length && !remove.length) throw invalid('add', 'name at least one flag to add or remove');
  const both = add.filter((f) => remove.includes(f));
  if (both.length) throw invalid('remove', `${both.join(', ')} cannot be added and removed at once`);
  if (add.some((f) => EXCLUSIVE[f] && add.includes(EXCLUSIVE[f])))
    throw invalid('add', 'qualified and rejected exclude each other: add one of them');
  return { add, remove };
}

/** The flags after the change: removed ones go, added ones join at the end (each displacing its exclusive pair). */
function nextFlags(current: string[], add: string[], remove: string[]): string[] {
  const displaced = new Set([...remove, ...add.map((f) => EXCLUSIVE[f]).filter(Boolean)]);
  const kept = current.filter((f) => !displaced.has(f));
  return [...kept, ...add.filter((f) => !kept.includes(f))];
}

/** What changed of one resource's flags. */
export interface FlagsChanged {
  type: ResourceType;
  id: string;
  added: string[];
  removed: string[];
}

interface Target {
  ref: string;
  type: ResourceType;
  id: string;
}

export interface FlagsOutcome {
  results: Schemas['FlagsBatchResult']['results'];
  errors: Schemas['FlagsBatchResult']['errors'];
  changed: FlagsChanged[];
}

/**
 * Applies one flag change to the tenant's resources named by `refs` (idap refs; malformed, media and absent ones
 * are reported in `errors`); every resource whose flags changed gets a new modified_at (the next sync sees it) and
 * goes through the index's maintenance (resourcesChanged). Answers each found resource as it is now.
 */
export async function changeFlags(
  clientId: string,
  refs: string[],
  change: FlagChange,
  lock: RunLocked,
): Promise<FlagsOutcome> {
  const { add, remove } = checked(change);
  const errors: Record<string, string> = {};
  let pending: Target[] = [];
  for (const ref of new Set(refs)) {
    const p = parseRef(ref);
    if (p.ok) pending.push({ ref, type: p.type, id: p.id });
    else errors[ref] = p.error;
  }
  const done: Target[] = [];
  const changed: FlagsChanged[] = [];
  for (let round = 0; round < ROUNDS && pending.length; round++) {
    const docs = await stored(clientId, pending);
    const writes: { target: Target; before: string[]; after: string[] }[] = [];
    for (const target of pending) {
      const doc = docs.get(`${target.type}/${target.id}`);
      if (!doc) {
        errors[target.ref] = RESOURCE_NOT_FOUND;
        continue;
      }
      const before = doc.flags ?? [];
      const after = nextFlags(before, add, remove);
      if (after.length > MAX_FLAGS && after.length > before.length) errors[target.ref] = TOO_MANY_FLAGS;
      else if (sameFlags(before, after)) done.push(target);
      else writes.push({ target, before, after });
    }
    const applied = await stampedWrite(async (stamp) => {
      const matched = await Promise.all(
        writes.map(async (w) => {
          const res = await ResourceModel.updateOne(
            { _id: w.target.id, client_id: clientId, resource_type: w.target.type, flags: w.before },
            { $set: { flags: w.after }, $max: { modified_at: stamp } },
            { timestamps: false },
          );
          return res.matchedCount === 1;
        }),
      );
      const written = writes.filter((_, i) => matched[i]);
      return { result: written, changed: written.map((w) => ({ clientId, id: w.target.id })) };
    });
    for (const w of applied) {
      done.push(w.target);
      changed.push({
        type: w.target.type,
        id: w.target.id,
        added: w.after.filter((f) => !w.before.includes(f)),
        removed: w.before.filter((f) => !w.after.includes(f)),
      });
    }
    pending = writes.filter((w) => !applied.includes(w)).map((w) => w.target);
  }
  for (const target of pending) errors[target.ref] = FLAGS_CONFLICT;
  if (changed.length) await resourcesChanged(clientId, changed, lock);
  const now = await stored(clientId, done);
  const results: Record<string, ResourceView> = {};
  for (const target of done) {
    const doc: StoredResource | undefined = now.get(`${target.type}/${target.id}`);
    if (doc) results[target.ref] = resourceView(doc);
  }
  return { results, errors, changed };
}

const sameFlags = (a: string[], b: string[]) => a.length === b.length && a.every((f, i) => f === b[i]);

/**
 * The targets as stored, keyed `type/id`: read from the database, not through the per-process read cache, since a
 * change is computed from them (and written only if they still hold).
 */
async function stored(clientId: string, targets: Target[]): Promise<Map<string, StoredResource>> {
  const lists = await Promise.all(
    [...groupBy(targets, (t) => t.type)].map(([type, ofType]) =>
      ResourceModel.find({ client_id: clientId, resource_type: type, _id: { $in: ofType.map((t) => t.id) } }).lean<
        StoredResource[]
      >(),
    ),
  );
  return new Map(lists.flat().map((d) => [`${d.resource_type}/${d._id}`, d]));
}

/** One activity event per resource whose flags changed: who (the actor), which resource and which flags. */
export function flagEvents(
  clientId: string,
  actor: ActivityActor,
  action: string,
  changed: FlagsChanged[],
): ActivityInput[] {
  return changed.map((c) => ({
    clientId,
    actor,
    action,
    subject: { kind: c.type, id: c.id },
    label: [...c.added.map((f) => `+${f}`), ...c.removed.map((f) => `-${f}`)].join(' ') + ` ${idapRef(c.type, c.id)}`,
  }));
}

import type { AnyBulkWriteOperation } from 'mongoose';
import { ResourceModel, idapRef, resourceId, type ResourceType } from '../idap/resource.model';

/**
 * One idempotent upsert of an IDAP resource: the id is derived from the tenant, the type and the
 * thing's natural key (place id, domain, address...), data fields are set one by one (so two jobs
 * that know different fields of the same domain both keep theirs), `related` and `source_job_ids`
 * only grow. A retried activity or a re-run job writes the same documents again, never new ones.
 */
export interface ResourceWrite {
  id: string;
  ref: string;
  op: AnyBulkWriteOperation;
}

export function upsertResource(
  clientId: string, type: ResourceType, naturalKey: string, data: Record<string, unknown>, opts: { jobId: string; related?: string[] },
): ResourceWrite {
  const id = resourceId(clientId, type, naturalKey);
  const set: Record<string, unknown> = { resource_type: type };
  for (const [k, v] of Object.entries(data)) if (v !== undefined && v !== null) set[`data.${k}`] = v;
  const addToSet: Record<string, unknown> = { source_job_ids: opts.jobId };
  const related = [...new Set(opts.related ?? [])].filter((r) => r !== idapRef(type, id));
  if (related.length) addToSet.related = { $each: related };
  return {
    id,
    ref: idapRef(type, id),
    op: { updateOne: { filter: { _id: id, client_id: clientId }, update: { $set: set, $setOnInsert: { flags: ['new'] }, $addToSet: addToSet }, upsert: true } },
  };
}

/** Adds refs to an existing resource's `related` (a business learning about its contacts). */
export function linkResource(clientId: string, id: string, refs: string[]): AnyBulkWriteOperation {
  return { updateOne: { filter: { _id: id, client_id: clientId }, update: { $addToSet: { related: { $each: refs } } } } };
}

export async function writeResources(ops: AnyBulkWriteOperation[]): Promise<void> {
  if (ops.length) await ResourceModel.bulkWrite(ops as never, { ordered: false });
}

/** `+31 20 123 4567`, `0031-20-1234567` → `+31201234567`; other numbers keep their digits. */
export function normalizePhone(raw: string): string | null {
  const trimmed = raw.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) return null;
  if (trimmed.startsWith('+')) return `+${digits}`;
  if (digits.startsWith('00')) return `+${digits.slice(2)}`;
  return digits;
}

/** The host of a website URL, lower-case, without `www.`. */
export function domainOf(website: string | null | undefined): string | null {
  if (!website) return null;
  try {
    const host = new URL(/^https?:\/\//i.test(website) ? website : `https://${website}`).hostname.toLowerCase();
    return host.replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

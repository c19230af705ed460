import type { AnyBulkWriteOperation } from 'mongoose';
import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import { groupBy } from '../../lib/arrays';
import { insertNew, insertReportingDuplicates } from '../../lib/bulk-writes';
import { announceChanges } from '../search/index-changes';
import { parseRef } from './refs';
import {
  JobResourceModel,
  ResourceModel,
  idapRef,
  jobResourceId,
  jobResourcesOf,
  resourceId,
  type ResourceType,
} from './resource.model';
import { stampedWrite, updateResources } from './stamped-writes';

export { idapRef, resourceId, type ResourceType };

/**
 * One write of an IDAP resource: the id is derived from the tenant, the type and the thing's natural
 * key (place id, domain, address...), so a retried activity or a re-run job writes the same
 * documents again, never new ones.
 */
export interface ResourceWrite {
  id: string;
  ref: string;
  clientId: string;
  type: ResourceType;
  data: Record<string, unknown>;
  related: string[];
  jobId: string;
}

export function resourceWrite(
  clientId: string,
  type: ResourceType,
  naturalKey: string,
  data: Record<string, unknown>,
  opts: { jobId: string; related?: string[] },
): ResourceWrite {
  const id = resourceId(clientId, type, naturalKey);
  const ref = idapRef(type, id);
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined && v !== null));
  return {
    id,
    ref,
    clientId,
    type,
    data: clean,
    related: [...new Set(opts.related ?? [])].filter((r) => r !== ref),
    jobId: opts.jobId,
  };
}

/**
 * The upsert for a resource that may exist already: data fields are set one by one (so two jobs that
 * know different fields of the same domain both keep theirs), `related` and `source_job_ids` only grow;
 * `first_seen_job_id` is the job that created it, whichever job writes it later.
 */
function upsertOp(w: ResourceWrite): AnyBulkWriteOperation {
  const set: Record<string, unknown> = { resource_type: w.type };
  for (const [k, v] of Object.entries(w.data)) set[`data.${k}`] = v;
  const addToSet: Record<string, unknown> = { source_job_ids: w.jobId };
  if (w.related.length) addToSet.related = { $each: w.related };
  return {
    updateOne: {
      filter: { _id: w.id, client_id: w.clientId },
      update: { $set: set, $setOnInsert: { flags: ['new'], first_seen_job_id: w.jobId }, $addToSet: addToSet },
      upsert: true,
    },
  };
}

/** Refs to add to an existing resource's `related` (a business learning about its contacts). */
export interface ResourceLink {
  clientId: string;
  type: ResourceType;
  id: string;
  refs: string[];
}

/** A link from the resource `ref` (an idap ref) to `refs`; none when `ref` is not one. */
export function linkResource(clientId: string, ref: string, refs: string[]): ResourceLink[] {
  const parsed = parseRef(ref);
  return parsed.ok ? [{ clientId, type: parsed.type, id: parsed.id, refs }] : [];
}

const linkOp = (link: ResourceLink): AnyBulkWriteOperation => ({
  updateOne: {
    filter: { _id: link.id, client_id: link.clientId },
    update: { $addToSet: { related: { $each: link.refs } } },
  },
});

function merged(writes: ResourceWrite[]): ResourceWrite[] {
  const byId = new Map<string, ResourceWrite>();
  for (const w of writes) {
    const prev = byId.get(w.id);
    byId.set(
      w.id,
      prev ? { ...prev, data: { ...prev.data, ...w.data }, related: [...new Set([...prev.related, ...w.related])] } : w,
    );
  }
  return [...byId.values()];
}

/**
 * Writes resources in bulk: all of them first as one insertMany (the cheap path, and the common one
 * for a job's new findings); the ones that existed already (another job, an earlier run found them)
 * then as upserts in one unordered bulk, together with `links`, through the IDAP area's updateResources, which
 * stamps modified_at only where something a reader sees changed (a business found again as it was is not
 * "changed" for a sync). Every process's IDAP read cache then drops what it held of the types written
 * (index-changes.ts); the search index follows in the job's follow-up workflow (indexJobResults).
 */
export async function writeResources(writes: ResourceWrite[], links: ResourceLink[] = []): Promise<void> {
  const all = merged(writes);
  const dups = await stampedWrite(async (stamp) => {
    const existing = await insertReportingDuplicates(
      ResourceModel,
      all.map((w) => ({
        _id: w.id,
        client_id: w.clientId,
        resource_type: w.type,
        data: w.data,
        flags: ['new'],
        related: w.related,
        source_job_ids: [w.jobId],
        first_seen_job_id: w.jobId,
        created_at: stamp,
        modified_at: stamp,
      })),
    );
    const found = new Set(existing);
    const inserted = all.filter((_, i) => !found.has(i)).map((w) => ({ clientId: w.clientId, id: w.id }));
    return { result: existing, changed: inserted };
  });
  await updateResources([...dups.map((i) => upsertOp(all[i])), ...links.map(linkOp)]);
  await insertNew(
    JobResourceModel,
    all.map((w) => ({ _id: jobResourceId(w.jobId, w.type, w.id), client_id: w.clientId })),
  );
  const byClient = groupBy([...all, ...links], (w) => w.clientId);
  await Promise.all(
    [...byClient].map(([clientId, of]) =>
      announceChanges(
        clientId,
        of.map((w) => ({ type: w.type, resources: [w.id] })),
      ),
    ),
  );
}

/**
 * A phone number as its resource's key: E.164 (`+31 (0)20 123 4567`, `0031-20-1234567`, and `020 123 4567` read
 * in NL, all → `+31201234567`) when libphonenumber-js reads it as a valid number, international or national in
 * `country` (the job's or the company's ISO country code); any other number as before: its digits, with `+` for
 * an international one (`00` read as `+`), or null when it has fewer than 6 or more than 15 digits.
 */
export function normalizePhone(raw: string, country?: string | null): string | null {
  const trimmed = raw.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) return null;
  const international = trimmed.startsWith('+') ? trimmed : digits.startsWith('00') ? `+${digits.slice(2)}` : null;
  const region = country?.toUpperCase();
  const parsed = parsePhoneNumberFromString(international ?? trimmed, {
    defaultCountry: region && isSupportedCountry(region) ? region : undefined,
  });
  if (parsed?.isValid()) return parsed.number;
  return international ? `+${international.replace(/\D/g, '')}` : digits;
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

/** Drops the jobs' lists of the resources they wrote (one _id range per job), their resources kept; how many went. */
export async function dropJobResourceLists(jobs: { _id: string; client_id: string }[]): Promise<number> {
  const dropped = await Promise.all(jobs.map((j) => JobResourceModel.deleteMany(jobResourcesOf(j.client_id, j._id))));
  return dropped.reduce((n, r) => n + r.deletedCount, 0);
}

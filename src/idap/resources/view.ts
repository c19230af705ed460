import type { Schemas } from '../../lib/contract-types';
import { iso } from '../../lib/ids';
import { idapRef, type ResourceType } from './resource.model';

export interface StoredResource {
  _id: string;
  client_id: string;
  resource_type: ResourceType;
  data: Record<string, unknown>;
  flags: string[];
  related: string[];
  created_at: Date;
  modified_at: Date;
}

/** A resource as the interface answers it (a list's item, a flag change's result; a search adds its score). */
export type ResourceView = Schemas['ListedResource'];

/** The interface's resource fields; `fields` narrows `data` (dotted names reach into objects). */
export function resourceView(doc: StoredResource, fields: string[] = []): ResourceView {
  return {
    idap_ref: idapRef(doc.resource_type, doc._id),
    resource_type: doc.resource_type,
    resource_id: doc._id,
    tenant_id: doc.client_id,
    created_at: iso(doc.created_at)!,
    modified_at: iso(doc.modified_at)!,
    flags: doc.flags ?? [],
    data: fields.length ? project(doc.data ?? {}, fields) : (doc.data ?? {}),
  };
}

function project(data: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of fields) {
    const parts = path.split('.');
    let value: unknown = data;
    for (const p of parts)
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[p] : undefined;
    if (value === undefined) continue;
    let target = out;
    for (const p of parts.slice(0, -1)) target = (target[p] ??= {}) as Record<string, unknown>;
    target[parts[parts.length - 1]] = value;
  }
  return out;
}

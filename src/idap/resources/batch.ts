import type { JsonBody, Schemas } from '../../lib/contract-types';
import { AppError } from '../../lib/errors';
import type { IdapReads } from '../search/index-reads';
import { RESOURCE_TYPES, type ResourceType } from './resource.model';
import { RESOURCE_NOT_FOUND, csv, parseRef } from './refs';
import { resourceView, type ResourceView, type StoredResource } from './view';

type BatchItem = Schemas['IdapResource'];

/** The tenant's resources named by (type, id), one query per type for those not cached; keyed `type/id`. */
export async function fetchGrouped(
  reads: IdapReads,
  clientId: string,
  wanted: Map<ResourceType, Set<string>>,
): Promise<Map<string, StoredResource>> {
  const lists = await Promise.all(
    [...wanted].map(async ([type, ids]) => [...(await reads.of(clientId, type).resources([...ids])).values()]),
  );
  return new Map(lists.flat().map((d) => [`${d.resource_type}/${d._id}`, d]));
}

function want(m: Map<ResourceType, Set<string>>, type: ResourceType, id: string) {
  m.set(type, (m.get(type) ?? new Set()).add(id));
}

function includeTypes(include: string | undefined): ResourceType[] {
  const types = csv(include);
  const unknown = types.filter((t) => !(RESOURCE_TYPES as readonly string[]).includes(t));
  if (unknown.length) {
    throw AppError.invalid(`include: unknown resource type ${unknown.join(', ')}`, [
      { location: 'body', field: 'include', message: `must list types from ${RESOURCE_TYPES.join(', ')}` },
    ]);
  }
  return types as ResourceType[];
}

/**
 * Up to 100 refs of mixed types: one query per type for the refs, and one per included type for
 * their related resources (each only for what the process's cache does not hold, index-reads.ts). A ref
 * that fails is reported in `errors` and does not fail the others.
 */
export async function batchGet(
  reads: IdapReads,
  clientId: string,
  req: JsonBody<'batchGetResources'>,
): Promise<Schemas['BatchResult']> {
  const fields = csv(req.fields);
  const include = includeTypes(req.include);
  const results: Record<string, BatchItem> = {};
  const errors: Record<string, string> = {};
  const parsed = [...new Set(req.refs)].map((ref) => ({ ref, parsed: parseRef(ref) }));
  const wanted = new Map<ResourceType, Set<string>>();
  for (const { parsed: p } of parsed) if (p.ok) want(wanted, p.type, p.id);
  const docs = await fetchGrouped(reads, clientId, wanted);
  const found: { ref: string; doc: StoredResource }[] = [];
  for (const { ref, parsed: p } of parsed) {
    if (!p.ok) errors[ref] = p.error;
    else if (!docs.has(`${p.type}/${p.id}`)) errors[ref] = RESOURCE_NOT_FOUND;
    else {
      const doc = docs.get(`${p.type}/${p.id}`)!;
      found.push({ ref, doc });
      results[ref] = resourceView(doc, fields);
    }
  }
  if (include.length) await attachRelated(reads, clientId, include, found, results);
  return { results, errors };
}

/** `related` of each result: its related resources of the included types (unknown or gone refs left out). */
async function attachRelated(
  reads: IdapReads,
  clientId: string,
  include: ResourceType[],
  found: { ref: string; doc: StoredResource }[],
  results: Record<string, BatchItem>,
) {
  const wanted = new Map<ResourceType, Set<string>>();
  const refsOf = (doc: StoredResource) =>
    (doc.related ?? [])
      .map(parseRef)
      .filter((p): p is Extract<typeof p, { ok: true }> => p.ok && include.includes(p.type));
  for (const { doc } of found) for (const p of refsOf(doc)) want(wanted, p.type, p.id);
  const related = await fetchGrouped(reads, clientId, wanted);
  const views = new Map([...related].map(([k, d]) => [k, resourceView(d)]));
  for (const { ref, doc } of found) {
    const item = results[ref];
    item.related = Object.fromEntries(include.map((t) => [t, [] as ResourceView[]]));
    for (const p of refsOf(doc)) {
      const v = views.get(`${p.type}/${p.id}`);
      if (v) item.related[p.type].push(v);
    }
  }
}

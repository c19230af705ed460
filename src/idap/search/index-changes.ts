import type Redis from 'ioredis';
import { invalidationsOf, type Invalidations } from '../../lib/engines/invalidations';
import type { ResourceType } from '../resources/resource.model';

/**
 * Changes to a tenant's resources or their search index, announced to every process over the Redis
 * subscription that carries the in-process caches' invalidations (src/lib/engines/invalidations.ts): each
 * process's IDAP read cache (index-reads.ts) drops what it holds that the change touched, and the write
 * that announced it is acknowledged only once every subscribed process has (so a search or batch after a write
 * never answers from before it).
 *
 * Every process that builds the idap module announces through its Redis (createIdapModule), so the write paths
 * (writeResources, indexResources, changeFlags) need nothing passed in.
 */
export const IDAP_TOPIC = 'idap';

/**
 * What changed in one type of a tenant: these resources (their documents, and their forward entries when the
 * index changed) and, when the index changed, these terms (their postings and frequencies, and with them the
 * type's statistics and the vocabulary's completions). Without `resources`, anything of the type may have.
 */
export interface TypeChange {
  type: ResourceType;
  resources?: string[];
  /** Set when the index changed: the terms whose postings did (possibly none). */
  terms?: string[];
}

/** Past these, a change is announced as one of the whole type (a smaller message, the same effect). */
const MAX_LISTED_RESOURCES = 1000;
const MAX_LISTED_TERMS = 2000;

const buses = new Map<Invalidations, number>();

/** Announces this process's changes through `redis` until the returned function is called. */
export function announceThrough(redis: Redis): () => void {
  const bus = invalidationsOf(redis);
  buses.set(bus, (buses.get(bus) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = buses.get(bus)! - 1;
    if (n) buses.set(bus, n);
    else buses.delete(bus);
  };
}

/** A change as a message: JSON `[client, [[type, resources or null, terms or null], ...]]`. */
export function changeDetail(clientId: string, changes: TypeChange[]): string {
  return JSON.stringify([
    clientId,
    changes.map((c) =>
      (c.resources?.length ?? 0) > MAX_LISTED_RESOURCES || (c.terms?.length ?? 0) > MAX_LISTED_TERMS
        ? [c.type, null, null]
        : [c.type, c.resources ?? null, c.terms ?? null],
    ),
  ]);
}

/** The change a message describes; null for one this version cannot read (drop everything, to be safe). */
export function parseChange(detail: string): { clientId: string; changes: TypeChange[] } | null {
  let clientId: string;
  let changes: [ResourceType, string[] | null, string[] | null][];
  try {
    [clientId, changes] = JSON.parse(detail);
    if (typeof clientId !== 'string' || !Array.isArray(changes)) return null;
  } catch {
    return null;
  }
  return {
    clientId,
    changes: changes.map(([type, resources, terms]) => ({
      type,
      ...(resources ? { resources } : {}),
      ...(terms ? { terms } : {}),
    })),
  };
}

/**
 * Tells every process what changed in the tenant's resources (a type given alone: anything of it). Call it after
 * the write, before answering for it. A process that cannot reach Redis fails here (and its caller is retried or
 * answers 503), as the credential cache's revocations do: the others' subscriptions then hold on a Redis that went
 * away, and they serve nothing cached until they are subscribed again.
 */
export async function announceChanges(clientId: string, changes: (TypeChange | ResourceType)[]): Promise<void> {
  const byType = new Map<ResourceType, TypeChange>();
  for (const c of changes.map((x) => (typeof x === 'string' ? { type: x } : x))) {
    const prev = byType.get(c.type);
    byType.set(c.type, prev ? mergeChanges(prev, c) : c);
  }
  if (!byType.size) return;
  if (!buses.size) {
    throw new Error('IDAP changes cannot be announced: no idap module was built in this process (createIdapModule)');
  }
  const detail = changeDetail(clientId, [...byType.values()]);
  await Promise.all([...buses.keys()].map((bus) => bus.publish(IDAP_TOPIC, detail)));
}

function mergeChanges(a: TypeChange, b: TypeChange): TypeChange {
  if (!a.resources || !b.resources) return { type: a.type };
  const terms = a.terms || b.terms ? [...new Set([...(a.terms ?? []), ...(b.terms ?? [])])] : undefined;
  return { type: a.type, resources: [...new Set([...a.resources, ...b.resources])], ...(terms ? { terms } : {}) };
}

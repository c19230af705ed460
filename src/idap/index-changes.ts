import type Redis from 'ioredis';
import { invalidationsOf, type Invalidations } from '../lib/engines/invalidations';
import type { ResourceType } from './resource.model';

/**
 * Changes to a tenant's resources or their search index, announced to every process over the Redis
 * subscription that carries the in-process caches' invalidations (src/lib/engines/invalidations.ts): each
 * process's IDAP read cache (index-reads.ts) drops what it holds of the tenant's changed types, and the write
 * that announced it is acknowledged only once every subscribed process has (so a search or batch after a write
 * never answers from before it).
 *
 * Every process that builds the idap module announces through its Redis (createIdapModule), so the write paths
 * (upsertResources, indexResources, the jobs' writeResources) need nothing passed in.
 */
export const IDAP_TOPIC = 'idap';

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

/** `<client>|<type>,<type>`: what a change message says. */
export const changeDetail = (clientId: string, types: readonly string[]) => `${clientId}|${types.join(',')}`;

export function parseChange(detail: string): { clientId: string; types: string[] } {
  const bar = detail.lastIndexOf('|');
  return { clientId: detail.slice(0, bar), types: detail.slice(bar + 1).split(',') };
}

/**
 * Tells every process that the tenant's resources of these types (or their index) changed. Call it after the
 * write, before answering for it. A process that cannot reach Redis fails here (and its caller is retried or
 * answers 503), as the credential cache's revocations do: the others' subscriptions then hold on a Redis that
 * went away, and they serve nothing cached until they are subscribed again.
 */
export async function announceChanges(clientId: string, types: Iterable<ResourceType>): Promise<void> {
  const list = [...new Set(types)];
  if (!list.length) return;
  if (!buses.size) {
    throw new Error('IDAP changes cannot be announced: no idap module was built in this process (createIdapModule)');
  }
  await Promise.all([...buses.keys()].map((bus) => bus.publish(IDAP_TOPIC, changeDetail(clientId, list))));
}

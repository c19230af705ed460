import type Redis from 'ioredis';
import { invalidationsOf } from '../../lib/engines/invalidations';
import type { ResourceType } from '../resources/resource.model';
import { IDAP_TOPIC, parseChange } from './index-changes';
import { TypeCache, type TypeReads } from './type-cache';

export interface IdapReads {
  /** The reads over one tenant's type: from this process's cache while it is kept exact, else from the database. */
  of(clientId: string, type: ResourceType): TypeReads & { readonly cached: boolean };
  /** How much is cached (units: a resource 10, a forward entry its postings, a list entry 1), in all and per tenant. */
  size(clientId?: string): number;
  /** Drops everything (a test's or benchmark's cold start). */
  clear(): void;
}

/** IDAP_CACHE_MAX_UNITS, IDAP_CACHE_TENANT_MAX_UNITS and IDAP_CACHE_MAX_TERMS. */
export interface IdapCacheLimits {
  /** Units the cache holds at most, over all tenants (about 150 bytes a unit). */
  maxUnits: number;
  /** Units one tenant's entries hold at most. */
  maxUnitsPerTenant: number;
  /** Entries each vocabulary map of a tenant's type holds at most (frequencies, lists, completions). */
  maxTerms: number;
}

/**
 * The read path's per-process cache: for each tenant's type, its statistics, the vocabulary looked up, the
 * postings lists as far as searches read them, forward entries and resources. Writes announce what they changed
 * (index-changes.ts) over the Redis subscription of src/lib/engines/invalidations.ts, and the tenant's changed
 * types are dropped in every process before the write is acknowledged; while the subscription is not live (Redis
 * unreachable, reconnecting) nothing is cached, and every (re)subscription drops everything, since changes may have
 * been missed meanwhile. A read that started before a change and ends after it fills an entry already dropped, so
 * it is never served again.
 *
 * Bounded so that no tenant takes another's room (docs/idap.md, "The cache's bounds"): a tenant past
 * `maxUnitsPerTenant` gives up its own entries (its types used longest ago, then the per-resource entries of the
 * type it reads, then that type); when the whole cache is past `maxUnits`, the tenant holding the most gives up
 * its entries first, so a tenant's searches never evict the entries of a tenant holding less. Each vocabulary map
 * of a type keeps at most `maxTerms` entries, the least recently used going first.
 */
export function createIdapReads(redis: Redis, limits: IdapCacheLimits): IdapReads {
  const entries = new Map<string, TypeCache>();
  const tenants = new Map<string, number>();
  let units = 0;
  let subscription: { live(): boolean } | null = null;

  const count = (clientId: string, n: number) => {
    units += n;
    const held = (tenants.get(clientId) ?? 0) + n;
    if (held > 0) tenants.set(clientId, held);
    else tenants.delete(clientId);
  };
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    count(entry.clientId, -entry.units);
  };
  const dropAll = () => {
    entries.clear();
    tenants.clear();
    units = 0;
  };
  /**
   * Frees some of `clientId`'s units: its type used longest ago but `current` (the one being read), else
   * `current`'s per-resource entries, else `current` itself. Answers false when it holds nothing to free.
   */
  function evictFrom(clientId: string, current: TypeCache): boolean {
    for (const [key, entry] of entries) {
      if (entry.clientId === clientId && entry !== current) {
        drop(key);
        return true;
      }
    }
    const key = `${current.clientId}|${current.type}`;
    if (current.clientId !== clientId || entries.get(key) !== current) return false;
    const freed = current.shrink();
    if (freed > 0) count(clientId, -freed);
    else drop(key);
    return true;
  }
  function makeRoom(current: TypeCache) {
    const tenant = current.clientId;
    while ((tenants.get(tenant) ?? 0) > limits.maxUnitsPerTenant) if (!evictFrom(tenant, current)) break;
    while (units > limits.maxUnits) {
      let largest = tenant;
      for (const [clientId, held] of tenants) if (held > (tenants.get(largest) ?? 0)) largest = clientId;
      if (!evictFrom(largest, current)) break;
    }
  }

  return {
    of(clientId, type) {
      subscription ??= invalidationsOf(redis).watch(IDAP_TOPIC, (detail) => {
        const parsed = detail === undefined ? null : parseChange(detail);
        if (!parsed) return dropAll();
        const { clientId: changed, changes } = parsed;
        for (const change of changes) {
          const key = `${changed}|${change.type}`;
          const entry = entries.get(key);
          if (!entry) continue;
          if (change.resources) count(changed, -entry.forget(change));
          else drop(key);
        }
      });
      if (!subscription.live()) return new TypeCache(clientId, type, limits.maxTerms, () => undefined, false);
      const key = `${clientId}|${type}`;
      let entry = entries.get(key);
      if (entry) entries.delete(key);
      else {
        const created: TypeCache = new TypeCache(clientId, type, limits.maxTerms, (n) => {
          if (entries.get(key) !== created) return;
          count(clientId, n);
          if (n > 0 && (units > limits.maxUnits || (tenants.get(clientId) ?? 0) > limits.maxUnitsPerTenant))
            makeRoom(created);
        });
        entry = created;
      }
      entries.set(key, entry); // the most recently used last
      return entry;
    },
    size: (clientId) => (clientId === undefined ? units : (tenants.get(clientId) ?? 0)),
    clear: dropAll,
  };
}

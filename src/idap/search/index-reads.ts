import type Redis from 'ioredis';
import { invalidationsOf } from '../../lib/engines/invalidations';
import { ResourceModel, type ResourceType } from '../resources/resource.model';
import { IDAP_TOPIC, parseChange, type TypeChange } from './index-changes';
import type { ScoredPosting } from './ranking';
import {
  DocTermsModel,
  TermDfModel,
  TermModel,
  dfId,
  idPrefixRange,
  parsePostingId,
  readIndexStats,
  type IndexStats,
} from './search-index.model';
import type { StoredResource } from '../resources/view';

/** What one search read, for the benchmark and the tests (searchResources' `trace`). */
export interface SearchTrace {
  /** Postings of the query's terms gone through, one per resource and term (whether cached or read). */
  postings: number;
  /** Resources scored. */
  candidates: number;
  /** Documents this search read from the database (the rest came from the process's cache). */
  fromDatabase: number;
  /** Queries this search sent to the database (0: answered from the process's cache alone). */
  queries: number;
}

/** A trace with nothing counted yet. */
export const newSearchTrace = (): SearchTrace => ({ postings: 0, candidates: 0, fromDatabase: 0, queries: 0 });

/** A resource's place in a term's list: best first, then by resource id. */
export interface ListEntry {
  id: string;
  rank: string;
}

/** Ids per `$in`, so that FerretDB can still answer each from its _id index (it scans above 1,000). */
const IN_CHUNK = 500;
/** Postings read from a term's list at first, then four times more each time, up to the last. */
const FIRST_CHUNK = 128;
const LAST_CHUNK = 4096;
/** Completions of a prefix read (in term order), of which the most frequent are used. */
const MAX_COMPLETIONS = 1000;

const chunks = <T>(items: T[], size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * The part of a term's postings read so far, as distinct resources in list order (a resource's postings in
 * several fields are one entry). More is read from the database when a search goes further than anyone before.
 */
export class PostingList {
  readonly entries: ListEntry[] = [];
  done = false;
  private readonly seen = new Set<string>();
  private lastId: string | null = null;
  private chunk = FIRST_CHUNK;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly read: (after: string | null, limit: number) => Promise<string[]>,
    private readonly prefixLength: number,
    private readonly grew: (units: number) => void,
  ) {}

  /** Until `n` entries are loaded or the list has no more. */
  async ensure(n: number, trace?: SearchTrace): Promise<void> {
    while (this.entries.length < n && !this.done) {
      this.loading ??= this.loadMore(trace).finally(() => (this.loading = null));
      await this.loading;
    }
  }

  private async loadMore(trace?: SearchTrace): Promise<void> {
    const limit = this.chunk;
    if (trace) trace.queries += 1;
    const ids = await this.read(this.lastId, limit);
    if (trace) trace.fromDatabase += ids.length;
    this.chunk = Math.min(this.chunk * 4, LAST_CHUNK);
    const before = this.entries.length;
    for (const id of ids) {
      const { rank, resourceId } = parsePostingId(id, this.prefixLength);
      if (this.seen.has(resourceId)) continue;
      this.seen.add(resourceId);
      this.entries.push({ id: resourceId, rank });
    }
    if (ids.length) this.lastId = ids[ids.length - 1];
    if (ids.length < limit) this.done = true;
    this.grew(this.entries.length - before);
  }
}

/** The reads a search and a batch make over one tenant's resources of one type. */
export interface TypeReads {
  stats(trace?: SearchTrace): Promise<IndexStats>;
  /** Document frequencies of those of `terms` that are in the index. */
  vocabulary(terms: string[], trace?: SearchTrace): Promise<Map<string, number>>;
  /** The index's terms that start with `prefix` (and are longer), the first MAX_COMPLETIONS in term order. */
  completions(prefix: string, trace?: SearchTrace): Promise<{ term: string; df: number }[]>;
  list(term: string): PostingList;
  /** Each resource's postings (its forward index entry), for those indexed. */
  forward(ids: string[], trace?: SearchTrace): Promise<Map<string, ScoredPosting[]>>;
  /** The resources that exist. */
  resources(ids: string[], trace?: SearchTrace): Promise<Map<string, StoredResource>>;
}

/** A resource is counted as this many units of the cache's size, a forward entry as its postings, a list entry as 1. */
const RESOURCE_UNITS = 10;

type Completions = { term: string; df: number }[];

/**
 * A map that keeps at most `max` entries, the least recently used going first: `get` counts as a use. `evicted`
 * hears of each entry that goes.
 */
class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly max: number,
    private readonly evicted: (value: V) => void,
  ) {}

  get size() {
    return this.entries.size;
  }

  has(key: K) {
    return this.entries.has(key);
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Last in insertion order is the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The entry without counting a use. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V) {
    this.entries.delete(key);
    this.entries.set(key, value);
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(oldest);
      this.evicted(old);
    }
  }

  delete(key: K) {
    return this.entries.delete(key);
  }

  values() {
    return this.entries.values();
  }

  clear() {
    this.entries.clear();
  }
}

/** One tenant's type: what was read of it, kept until a write changes it (or the cache needs the room). */
class TypeCache implements TypeReads {
  units = 0;
  /** Counts what `forget` dropped: a read that began before then keeps nothing it read. */
  private generation = 0;
  private statsRead: Promise<IndexStats> | null = null;
  /**
   * The vocabulary looked up: terms' document frequencies (null: not in the index), terms' lists as far as read,
   * and prefixes' completions, each at most `maxTerms` entries, the least recently used going first.
   */
  private readonly df: BoundedMap<string, number | null>;
  private readonly lists: BoundedMap<string, PostingList>;
  private readonly prefixes: BoundedMap<string, { read: Promise<Completions>; units: number }>;
  private forwardEntries = new Map<string, ScoredPosting[] | null>();
  private resourceDocs = new Map<string, StoredResource | null>();
  private readonly scope: { client_id: string; resource_type: ResourceType };

  /**
   * `grew` hears of every change of its units (negative when it let go of some); `cached`: whether it is kept
   * beyond the read it serves (not while the process's subscription to changes is down).
   */
  constructor(
    readonly clientId: string,
    readonly type: ResourceType,
    maxTerms: number,
    private readonly grew: (units: number) => void,
    readonly cached = true,
  ) {
    this.scope = { client_id: clientId, resource_type: type };
    this.df = new BoundedMap(maxTerms, () => this.add(-1));
    this.lists = new BoundedMap(maxTerms, (list) => this.add(-list.entries.length));
    this.prefixes = new BoundedMap(maxTerms, (prefix) => this.add(-prefix.units));
  }

  private add(units: number) {
    this.units += units;
    this.grew(units);
  }

  /**
   * Drops what a change touched: the resources' documents; when the index changed, their forward entries, the
   * lists and frequencies of its terms, the statistics and the completions (the vocabulary may have grown).
   * Answers the units freed.
   */
  forget(change: TypeChange): number {
    this.generation += 1;
    let freed = 0;
    for (const id of change.resources ?? []) {
      if (this.resourceDocs.delete(id)) freed += RESOURCE_UNITS;
      if (change.terms) {
        const postings = this.forwardEntries.get(id);
        if (postings !== undefined && this.forwardEntries.delete(id)) freed += postings?.length ?? 1;
      }
    }
    if (change.terms) {
      this.statsRead = null;
      for (const prefix of this.prefixes.values()) freed += prefix.units;
      this.prefixes.clear();
      for (const term of change.terms) {
        if (this.df.delete(term)) freed += 1;
        const list = this.lists.peek(term);
        if (list && this.lists.delete(term)) freed += list.entries.length;
      }
    }
    this.units -= freed;
    return freed;
  }

  /** Lets go of the per-resource entries (the biggest part), keeping statistics, vocabulary and lists. */
  shrink(): number {
    const freed = [...this.forwardEntries.values()].reduce((n, p) => n + (p?.length ?? 1), 0);
    const docs = this.resourceDocs.size * RESOURCE_UNITS;
    this.forwardEntries = new Map();
    this.resourceDocs = new Map();
    this.units -= freed + docs;
    return freed + docs;
  }

  stats(trace?: SearchTrace): Promise<IndexStats> {
    if (!this.statsRead) {
      if (trace) {
        trace.queries += 1;
        trace.fromDatabase += 1;
      }
      this.statsRead = readIndexStats(this.clientId, this.type);
      this.statsRead.catch(() => (this.statsRead = null));
    }
    return this.statsRead;
  }

  async vocabulary(terms: string[], trace?: SearchTrace): Promise<Map<string, number>> {
    const missing = [...new Set(terms)].filter((t) => this.df.get(t) === undefined);
    const out = new Map<string, number>();
    if (missing.length) {
      const generation = this.generation;
      if (trace) trace.queries += 1;
      const found = await TermDfModel.find(
        { ...this.scope, _id: { $in: missing.map((t) => dfId(this.clientId, this.type, t)) } },
        { _id: 0, term: 1, df: 1 },
      ).lean<{ term: string; df: number }[]>();
      if (trace) trace.fromDatabase += found.length;
      for (const v of found) out.set(v.term, v.df);
      if (generation === this.generation) {
        for (const t of missing) {
          // Another search may have kept it meanwhile: counted once.
          if (this.df.peek(t) === undefined) this.add(1);
          this.df.set(t, out.get(t) ?? null);
        }
      }
    }
    for (const t of terms) {
      const df = this.df.peek(t);
      if (!out.has(t) && df !== null && df !== undefined) out.set(t, df);
    }
    return out;
  }

  completions(prefix: string, trace?: SearchTrace): Promise<Completions> {
    const kept = this.prefixes.get(prefix);
    if (kept) return kept.read;
    if (trace) trace.queries += 1;
    const entry = { read: Promise.resolve<Completions>([]), units: 0 };
    entry.read = TermDfModel.find(
      { ...this.scope, _id: idPrefixRange(dfId(this.clientId, this.type, prefix), false) },
      { _id: 0, term: 1, df: 1 },
    )
      .sort({ _id: 1 })
      .limit(MAX_COMPLETIONS)
      .lean<Completions>()
      .then((found) => {
        if (trace) trace.fromDatabase += found.length;
        // Counted only while it is kept (a change or the bound may have let go of it meanwhile).
        if (this.prefixes.peek(prefix) === entry) {
          entry.units = found.length + 1;
          this.add(entry.units);
        }
        return found;
      });
    entry.read.catch(() => this.prefixes.peek(prefix) === entry && this.prefixes.delete(prefix));
    this.prefixes.set(prefix, entry);
    return entry.read;
  }

  list(term: string): PostingList {
    let list = this.lists.get(term);
    if (!list) {
      const prefix = `${dfId(this.clientId, this.type, term)}|`;
      const read = async (after: string | null, limit: number) => {
        const range = after ? { $gt: after, $lt: `${prefix}\uffff` } : idPrefixRange(prefix);
        const rows = await TermModel.find({ ...this.scope, _id: range }, { _id: 1 })
          .sort({ _id: 1 })
          .limit(limit)
          .lean<{ _id: string }[]>();
        return rows.map((r) => r._id);
      };
      const created: PostingList = new PostingList(read, prefix.length, (units) => {
        if (this.lists.peek(term) === created) this.add(units);
      });
      list = created;
      this.lists.set(term, list);
    }
    return list;
  }

  async forward(ids: string[], trace?: SearchTrace): Promise<Map<string, ScoredPosting[]>> {
    return this.lookup(
      this.forwardEntries,
      ids,
      trace,
      async (part) => {
        const found = await DocTermsModel.find({ ...this.scope, _id: { $in: part } }, { postings: 1 }).lean<
          { _id: string; postings: ScoredPosting[] }[]
        >();
        return found.map((d) => [d._id, d.postings ?? []]);
      },
      (postings) => postings?.length ?? 1,
    );
  }

  async resources(ids: string[], trace?: SearchTrace): Promise<Map<string, StoredResource>> {
    return this.lookup(
      this.resourceDocs,
      ids,
      trace,
      async (part) => {
        const found = await ResourceModel.find({ ...this.scope, _id: { $in: part } }).lean<StoredResource[]>();
        return found.map((d) => [d._id, d]);
      },
      () => RESOURCE_UNITS,
    );
  }

  /** `ids` from `cache`, the ones it lacks read (IN_CHUNK at a time) and kept, absent ones as null. */
  private async lookup<T>(
    cache: Map<string, T | null>,
    ids: string[],
    trace: SearchTrace | undefined,
    read: (ids: string[]) => Promise<[string, T][]>,
    unitsOf: (value: T | null) => number,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const hit = cache.get(id);
      if (hit === undefined) missing.push(id);
      else if (hit !== null) out.set(id, hit);
    }
    if (!missing.length) return out;
    const generation = this.generation;
    const parts = chunks(missing, IN_CHUNK);
    if (trace) trace.queries += parts.length;
    const found = new Map((await Promise.all(parts.map(read))).flat());
    if (trace) trace.fromDatabase += found.size;
    // Kept only if nothing was dropped while reading (what was read may predate the change), and counted only
    // if the entry still uses this map (shrink lets go of it).
    const keep = generation === this.generation && (cache === this.forwardEntries || cache === this.resourceDocs);
    let units = 0;
    for (const id of missing) {
      const value = found.get(id) ?? null;
      if (value !== null) out.set(id, value);
      if (keep && !cache.has(id)) units += unitsOf(value);
      if (keep) cache.set(id, value);
    }
    if (keep) this.add(units);
    return out;
  }
}

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

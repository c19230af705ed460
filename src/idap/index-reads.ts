import type Redis from 'ioredis';
import { invalidationsOf } from '../lib/engines/invalidations';
import { ResourceModel, type ResourceType } from './resource.model';
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
import type { StoredResource } from './view';

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

/** One tenant's type: what was read of it, kept until a write changes it (or the cache needs the room). */
class TypeCache implements TypeReads {
  units = 0;
  /** Counts what `forget` dropped: a read that began before then keeps nothing it read. */
  private generation = 0;
  private statsRead: Promise<IndexStats> | null = null;
  private readonly df = new Map<string, number | null>();
  private readonly prefixes = new Map<string, Promise<{ term: string; df: number }[]>>();
  private readonly lists = new Map<string, PostingList>();
  private forwardEntries = new Map<string, ScoredPosting[] | null>();
  private resourceDocs = new Map<string, StoredResource | null>();
  private readonly scope: { client_id: string; resource_type: ResourceType };

  /** `cached`: whether it is kept beyond the read it serves (not while the subscription to changes is down). */
  constructor(
    private readonly clientId: string,
    private readonly type: ResourceType,
    private readonly grew: (units: number) => void,
    readonly cached = true,
  ) {
    this.scope = { client_id: clientId, resource_type: type };
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
      freed += this.prefixes.size;
      this.prefixes.clear();
      for (const term of change.terms) {
        if (this.df.delete(term)) freed += 1;
        const list = this.lists.get(term);
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
    const missing = [...new Set(terms)].filter((t) => !this.df.has(t));
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
        for (const t of missing) this.df.set(t, out.get(t) ?? null);
        this.add(missing.length);
      }
    }
    for (const t of terms) {
      const df = this.df.get(t);
      if (!out.has(t) && df !== null && df !== undefined) out.set(t, df);
    }
    return out;
  }

  completions(prefix: string, trace?: SearchTrace): Promise<{ term: string; df: number }[]> {
    let read = this.prefixes.get(prefix);
    if (!read) {
      if (trace) trace.queries += 1;
      read = TermDfModel.find(
        { ...this.scope, _id: idPrefixRange(dfId(this.clientId, this.type, prefix), false) },
        { _id: 0, term: 1, df: 1 },
      )
        .sort({ _id: 1 })
        .limit(MAX_COMPLETIONS)
        .lean<{ term: string; df: number }[]>()
        .then((found) => {
          if (trace) trace.fromDatabase += found.length;
          this.add(found.length + 1);
          return found;
        });
      read.catch(() => this.prefixes.delete(prefix));
      this.prefixes.set(prefix, read);
    }
    return read;
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
        if (this.lists.get(term) === created) this.add(units);
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
      if (keep) cache.set(id, value);
      units += unitsOf(value);
    }
    if (keep) this.add(units);
    return out;
  }
}

export interface IdapReads {
  /** The reads over one tenant's type: from this process's cache while it is kept exact, else from the database. */
  of(clientId: string, type: ResourceType): TypeReads & { readonly cached: boolean };
  /** How much is cached (units: a resource 10, a forward entry its postings, a list entry 1). */
  size(): number;
  /** Drops everything (a test's or benchmark's cold start). */
  clear(): void;
}

/** What the cache holds at most, over all tenants (about 150 bytes a unit: some 75 MB). */
export const MAX_CACHE_UNITS = 500_000;

/**
 * The read path's per-process cache: for each tenant's type, its statistics, the vocabulary looked up, the
 * postings lists as far as searches read them, forward entries and resources. Writes announce what they changed
 * (index-changes.ts) over the Redis subscription of src/lib/engines/invalidations.ts, and the tenant's changed
 * types are dropped in every process before the write is acknowledged; while the subscription is not live (Redis
 * unreachable, reconnecting) nothing is cached, and every (re)subscription drops everything, since changes may have
 * been missed meanwhile. A read that started before a change and ends after it fills an entry already dropped, so
 * it is never served again. Past MAX_CACHE_UNITS, the types used longest ago go first.
 */
export function createIdapReads(redis: Redis, opts: { maxUnits?: number } = {}): IdapReads {
  const maxUnits = opts.maxUnits ?? MAX_CACHE_UNITS;
  const entries = new Map<string, TypeCache>();
  let units = 0;
  let subscription: { live(): boolean } | null = null;

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    units -= entry.units;
  };
  const dropAll = () => {
    entries.clear();
    units = 0;
  };
  function makeRoom(current: TypeCache) {
    for (const [key, entry] of entries) {
      if (units <= maxUnits) return;
      if (entry !== current) drop(key);
    }
    if (units > maxUnits) units -= current.shrink();
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
          if (change.resources) units -= entry.forget(change);
          else drop(key);
        }
      });
      if (!subscription.live()) return new TypeCache(clientId, type, () => undefined, false);
      const key = `${clientId}|${type}`;
      let entry = entries.get(key);
      if (entry) entries.delete(key);
      else {
        const created: TypeCache = new TypeCache(clientId, type, (n) => {
          if (entries.get(key) !== created) return;
          units += n;
          if (units > maxUnits) makeRoom(created);
        });
        entry = created;
      }
      entries.set(key, entry); // the most recently used last
      return entry;
    },
    size: () => units,
    clear: dropAll,
  };
}

import { idBatches } from '../../lib/id-batches';
import type { ResourceType } from '../resources/resource.model';
import type { StoredResource } from '../resources/view';
import type { TypeChange } from './index-changes';
import { BoundedMap } from './bounded-map';
import {
  postingsPrefix,
  readCompletions,
  readForwardEntries,
  readFrequencies,
  readPostingIds,
  readResourceDocs,
  type TermFrequency,
  type TypeScope,
} from './index-queries';
import { PostingList } from './posting-list';
import type { ScoredPosting } from './ranking';
import { readIndexStats, type IndexStats } from './search-index.model';
import type { SearchTrace } from './search-trace';

/** The reads a search and a batch make over one tenant's resources of one type. */
export interface TypeReads {
  stats(trace?: SearchTrace): Promise<IndexStats>;
  /** Document frequencies of those of `terms` that are in the index. */
  vocabulary(terms: string[], trace?: SearchTrace): Promise<Map<string, number>>;
  /** The index's terms that start with `prefix` (and are longer), the first MAX_COMPLETIONS in term order. */
  completions(prefix: string, trace?: SearchTrace): Promise<TermFrequency[]>;
  list(term: string): PostingList;
  /** Each resource's postings (its forward index entry), for those indexed. */
  forward(ids: string[], trace?: SearchTrace): Promise<Map<string, ScoredPosting[]>>;
  /** The resources that exist. */
  resources(ids: string[], trace?: SearchTrace): Promise<Map<string, StoredResource>>;
}

/** A resource is counted as this many units of the cache's size, a forward entry as its postings, a list entry as 1. */
const RESOURCE_UNITS = 10;

type Completions = TermFrequency[];

/** One tenant's type: what was read of it, kept until a write changes it (or the cache needs the room). */
export class TypeCache implements TypeReads {
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
  private readonly scope: TypeScope;

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
      const found = await readFrequencies(this.scope, missing);
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
    entry.read = readCompletions(this.scope, prefix).then((found) => {
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
      const prefix = postingsPrefix(this.scope, term);
      const read = (after: string | null, limit: number) => readPostingIds(this.scope, prefix, after, limit);
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
      (part) => readForwardEntries(this.scope, part),
      (postings) => postings?.length ?? 1,
    );
  }

  async resources(ids: string[], trace?: SearchTrace): Promise<Map<string, StoredResource>> {
    return this.lookup(
      this.resourceDocs,
      ids,
      trace,
      (part) => readResourceDocs(this.scope, part),
      () => RESOURCE_UNITS,
    );
  }

  /** `ids` from `cache`, the ones it lacks read (IDS_PER_IN at a time) and kept, absent ones as null. */
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
    const parts = idBatches(missing);
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

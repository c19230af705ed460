import { parsePostingId } from './search-index.model';
import type { SearchTrace } from './search-trace';

/** A resource's place in a term's list: best first, then by resource id. */
export interface ListEntry {
  id: string;
  rank: string;
}

/** Postings read from a term's list at first, then four times more each time, up to the last. */
const FIRST_CHUNK = 128;
const LAST_CHUNK = 4096;

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

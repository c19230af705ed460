import type { JobDoc } from './job.model';
import type { ListPage } from './job-list-index';

/** Job records a process keeps of the pages it read (a few megabytes). */
const MAX_CACHED_JOBS = 5_000;
/**
 * A page is read again after this long even when its version did not change: a writer that does not raise the
 * version (a process of the previous release during a rolling deploy, an operator's edit in the shell) shows in a
 * list at most this late. At 200 list reads a second it costs one read of a page per half minute.
 */
const MAX_PAGE_AGE_MS = 30_000;

interface CachedPage {
  page: ListPage;
  result: { docs: JobDoc[]; total: number };
  readAt: number;
}

/**
 * The job-list pages this process read, each with the version of its tenant's job records it was read at
 * (job-list-index.ts). A page whose index read answers the same ids, total and version is answered from here without
 * reading the records again: every write to a job record raises the version before it is acknowledged, so a read
 * that starts after a write sees the newer version and reads the records. On the local document engine a page's
 * read of five records cost ~4 ms of its CPU, and at 200 list reads a second the coalesced reads were ~40 a second
 * of them while most pages had not changed (docs/performance.md, "Load"). Least recently used pages go first once
 * MAX_CACHED_JOBS records are kept; a page older than MAX_PAGE_AGE_MS is read again.
 */
export function createListPageCache(maxJobs = MAX_CACHED_JOBS, maxAgeMs = MAX_PAGE_AGE_MS, now = Date.now) {
  const pages = new Map<string, CachedPage>();
  let held = 0;
  const drop = (key: string) => {
    const cached = pages.get(key);
    if (!cached) return;
    held -= cached.result.docs.length;
    pages.delete(key);
  };
  return {
    /** The page's jobs as read before, when nothing in the tenant's job records changed since; else null. */
    get(key: string, page: ListPage): CachedPage['result'] | null {
      const cached = pages.get(key);
      if (!cached) return null;
      const same =
        now() - cached.readAt < maxAgeMs &&
        cached.page.version === page.version &&
        cached.page.total === page.total &&
        cached.page.ids.length === page.ids.length &&
        cached.page.ids.every((id, i) => id === page.ids[i]);
      if (!same) return null;
      pages.delete(key); // most recently used last
      pages.set(key, cached);
      return cached.result;
    },
    set(key: string, page: ListPage, result: CachedPage['result']): void {
      drop(key);
      pages.set(key, { page, result, readAt: now() });
      held += result.docs.length;
      for (const oldest of pages.keys()) {
        if (held <= maxJobs) break;
        drop(oldest);
      }
    },
  };
}

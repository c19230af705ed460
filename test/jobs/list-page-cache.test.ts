import type { JobDoc } from '../../src/jobs/job.model';
import { createListPageCache } from '../../src/jobs/list-page-cache';

// The cache alone (no engine): when a page read before may answer a list again. That it is raised by every write
// and used by the list is held end to end in job-list.test.ts.
const page = (version: string, ids = ['b', 'a'], total = 2) => ({ ids, total, version });
const result = (n: number) => ({ docs: Array.from({ length: n }, () => ({}) as JobDoc), total: n });

describe('the job list page cache', () => {
  it('answers a page again only while its ids, total and version are those it was read at', () => {
    const cache = createListPageCache();
    const read = result(2);
    cache.set('t1', page('e:1'), read);
    expect(cache.get('t1', page('e:1'))).toBe(read);
    expect(cache.get('t1', page('e:2'))).toBeNull();
    expect(cache.get('t1', page('e:1', ['c', 'b']))).toBeNull();
    expect(cache.get('t1', page('e:1', ['b', 'a'], 3))).toBeNull();
    expect(cache.get('t2', page('e:1'))).toBeNull();
  });

  it('reads a page again once it is older than its age bound, whatever its version says', () => {
    let clock = 1_000;
    const cache = createListPageCache(100, 30_000, () => clock);
    cache.set('t1', page('e:1'), result(2));
    clock += 29_999;
    expect(cache.get('t1', page('e:1'))).not.toBeNull();
    clock += 1;
    expect(cache.get('t1', page('e:1'))).toBeNull();
  });

  it('keeps at most its bound of job records, dropping the least recently used page first', () => {
    const cache = createListPageCache(4);
    cache.set('old', page('e:1'), result(2));
    cache.set('used', page('e:1'), result(2));
    expect(cache.get('old', page('e:1'))).not.toBeNull(); // now 'used' is the least recently used
    cache.set('new', page('e:1'), result(2));
    expect(cache.get('used', page('e:1'))).toBeNull();
    expect(cache.get('old', page('e:1'))).not.toBeNull();
    expect(cache.get('new', page('e:1'))).not.toBeNull();
  });
});

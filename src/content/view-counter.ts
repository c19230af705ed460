/**
 * Counts post reads with atomic `$inc`s, grouped: while one increment of a post is in flight, the
 * reads that arrive meanwhile are collected and written as one `$inc` of their number when it returns.
 * Every read still gets its own exact count: an `$inc` by n that returns V covers the counts
 * V-n+1 … V, handed out in arrival order. So a popular post costs one write per database round trip
 * instead of one per read, and the increments of one post never overlap within a process (which also
 * keeps counts exact on document stores whose `$inc` is not atomic under concurrency, such as the
 * local FerretDB).
 */
type Increment = (key: string, by: number) => Promise<number | null>;

interface Waiter {
  resolve(count: number | null): void;
  reject(err: unknown): void;
}

export function createViewCounter(increment: Increment) {
  const inFlight = new Set<string>();
  const pending = new Map<string, Waiter[]>();

  async function flush(key: string): Promise<void> {
    const waiters = pending.get(key)!;
    pending.delete(key);
    inFlight.add(key);
    try {
      const total = await increment(key, waiters.length);
      waiters.forEach((w, i) => w.resolve(total === null ? null : total - waiters.length + 1 + i));
    } catch (err) {
      waiters.forEach((w) => w.reject(err));
    } finally {
      inFlight.delete(key);
      if (pending.has(key)) void flush(key);
    }
  }

  return {
    /** Counts one read; resolves to the count including it, or null when the increment matched nothing. */
    count(key: string): Promise<number | null> {
      return new Promise((resolve, reject) => {
        const waiters = pending.get(key);
        if (waiters) waiters.push({ resolve, reject });
        else pending.set(key, [{ resolve, reject }]);
        if (!inFlight.has(key) && !waiters) void flush(key);
      });
    },
  };
}

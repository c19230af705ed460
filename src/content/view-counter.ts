/**
 * Counts post reads with atomic `$inc`s, grouped: while one increment of a post is in flight, the
 * reads that arrive meanwhile are collected and written as one `$inc` of their number when it returns.
 * A read that waits for its count still gets an exact one: an `$inc` by n that returns V covers the
 * counts V-n+1 … V, handed out in arrival order. So a popular post costs one write per database round
 * trip instead of one per read, and the increments of one post never overlap within a process (which
 * also keeps counts exact on a document engine whose `$inc` is not atomic under concurrency, as the
 * devstack's is). Reads that do not wait (add) are written at most every `backgroundDelayMs` per post.
 */
type Increment = (key: string, by: number, wantTotal: boolean) => Promise<number | null>;

interface Waiter {
  resolve(count: number | null): void;
  reject(err: unknown): void;
}

export function createViewCounter(
  increment: Increment,
  onBackgroundError: (err: unknown, key: string) => void,
  backgroundDelayMs = 0,
) {
  // Per key, the increment being written.
  const inFlight = new Map<string, Promise<void>>();
  const timers = new Map<string, NodeJS.Timeout>();
  // Per key, the reads not written yet: a waiter, or null for a read that does not wait (add()).
  const pending = new Map<string, (Waiter | null)[]>();

  function flush(key: string): Promise<void> {
    const writing = write(key);
    inFlight.set(key, writing);
    return writing;
  }

  async function write(key: string): Promise<void> {
    clearTimeout(timers.get(key));
    timers.delete(key);
    const reads = pending.get(key)!;
    pending.delete(key);
    try {
      const total = await increment(key, reads.length, reads.some(Boolean));
      reads.forEach((w, i) => w?.resolve(total === null ? null : total - reads.length + 1 + i));
    } catch (err) {
      if (reads.some((w) => !w)) onBackgroundError(err, key);
      reads.forEach((w) => w?.reject(err));
    } finally {
      inFlight.delete(key);
      schedule(key);
    }
  }

  /** Writes the pending reads of a key: now when one of them waits, else after backgroundDelayMs. */
  function schedule(key: string): void {
    const reads = pending.get(key);
    if (!reads || inFlight.has(key)) return;
    if (reads.some(Boolean) || backgroundDelayMs === 0) void flush(key);
    else if (!timers.has(key)) timers.set(key, setTimeout(() => void flush(key), backgroundDelayMs).unref());
  }

  function enqueue(key: string, waiter: Waiter | null): void {
    const reads = pending.get(key);
    if (reads) reads.push(waiter);
    else pending.set(key, [waiter]);
    schedule(key);
  }

  return {
    /** Counts one read; resolves to the count including it, or null when the increment matched nothing. */
    count(key: string): Promise<number | null> {
      return new Promise((resolve, reject) => enqueue(key, { resolve, reject }));
    },
    /** Counts one read without waiting for it to be written. */
    add(key: string): void {
      enqueue(key, null);
    },
    /** Writes every read not written yet, now, and waits until all are (a stopping process loses none). */
    async flushAll(): Promise<void> {
      while (pending.size || inFlight.size) {
        for (const key of [...pending.keys()]) if (!inFlight.has(key)) void flush(key);
        await Promise.all(inFlight.values());
      }
    },
  };
}

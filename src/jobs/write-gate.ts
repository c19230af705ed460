/**
 * A bulkhead for a worker's writes to the document store: at most `limit` bulk writes of job work at
 * a time in one process, the rest wait their turn (first come, first served). Provider calls do not
 * pass through it, so many jobs can wait on providers while their writes stay few and big. It keeps
 * a single-writer store (the devstack's FerretDB on SQLite) out of lock contention, and a real
 * MongoDB from being flooded by hundreds of concurrent activities.
 */
export function createWriteGate(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async function through<T>(work: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

export type WriteGate = ReturnType<typeof createWriteGate>;

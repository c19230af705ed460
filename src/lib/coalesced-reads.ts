const ignore = () => undefined;

interface KeyState<T> {
  running: Promise<T> | null;
  /** The read that starts once `running` ends, shared by everyone who asked meanwhile. */
  next: Promise<T> | null;
}

/**
 * Identical reads share engine work: while a read of a key is running, every caller asking for that key waits for
 * the next read of it, which starts when the running one ends and answers them all. A caller never gets a read that
 * started before it asked, so it sees every write acknowledged before its request (read-your-writes holds), and
 * however many ask, a key has at most one read running and one waiting. What it costs is one read's time at most.
 * The engine's work for a hot list then stays flat as its readers multiply (docs/performance.md, "Load").
 */
export function coalescedReads<T>() {
  const states = new Map<string, KeyState<T>>();

  function start(key: string, state: KeyState<T>, read: () => Promise<T>): Promise<T> {
    const reading = read();
    state.running = reading;
    reading
      .finally(() => {
        if (state.running === reading) state.running = null;
        if (!state.running && !state.next) states.delete(key);
      })
      .catch(ignore);
    return reading;
  }

  return (key: string, read: () => Promise<T>): Promise<T> => {
    let state = states.get(key);
    if (!state) states.set(key, (state = { running: null, next: null }));
    if (!state.running) return start(key, state, read);
    const s = state;
    s.next ??= state.running.then(ignore, ignore).then(() => {
      s.next = null;
      return start(key, s, read);
    });
    return s.next;
  };
}

/**
 * Single flight, for caches: while a load of a key runs, every caller asking for that key joins it (at most one load
 * of a key runs). Unlike coalescedReads a caller may get a load that started before it asked, so the key must name
 * what a write changes (the cache's version or generation): a caller after a write asks under another key and
 * never joins a load that may predate the write.
 */
export function singleFlight<T>() {
  const flights = new Map<string, Promise<T>>();
  return (key: string, load: () => Promise<T>): Promise<T> => {
    let flight = flights.get(key);
    if (!flight) {
      flight = load().finally(() => flights.delete(key));
      flights.set(key, flight);
    }
    return flight;
  };
}

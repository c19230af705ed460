/**
 * A map that keeps at most `max` entries, the least recently used going first: `get` counts as a use. `evicted`
 * hears of each entry that goes.
 */
export class BoundedMap<K, V> {
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

import type Redis from 'ioredis';
import { PinModel } from '../pin.model';
import type { FilterNode } from './filter-parser';
import { readPinChanges, startCursor, type ChangeCursor } from './pin-changes';
import { cachedValuesOf, toSearchDocument, valuesAt, type PinSearchDocument } from './search-document';
import type { SourceDoc } from './search-pipeline';
import { documentWords } from './text-match';

const numberOf = (token: string): number | null =>
  token.trim() !== '' && Number.isFinite(Number(token)) ? Number(token) : null;

/**
 * The keys a stored value is found under, matching filter-eval's equality (strings without case, numbers
 * numerically).
 */
function valueKey(v: unknown): string | null {
  if (typeof v === 'string') return `s:${v.toLowerCase()}`;
  if (typeof v === 'number') return `n:${v}`;
  if (typeof v === 'boolean') return `b:${v}`;
  return null;
}

/** The keys under which a filter token finds the values it equals. */
function tokenKeys(token: string): string[] {
  const n = numberOf(token);
  return [`s:${token.toLowerCase()}`, `b:${token.toLowerCase()}`, ...(n === null ? [] : [`n:${n}`])];
}

/**
 * A per-process copy of the pins as search documents, with their words and, per attribute filtered on
 * with `=` or IN, a map from value to pins (built on first use, kept current). It is loaded by one scan
 * of the pins collection and then kept current from the pin change feed (pin-changes.ts): before each
 * search, one Redis round trip lists the pins written since, which are re-read by `_id`. Visibility (an
 * active subscription not past its end) is decided per search, so a lapse by time shows at once.
 */
export class PinMemoryIndex {
  private entries = new Map<string, SourceDoc>();
  private valueMaps = new Map<string, Map<string, Set<string>>>();
  private numberLists = new Map<string, NumberList>();
  private cursor: ChangeCursor | null = null;
  private syncing: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** How long the last full load took, and how many pins it read. */
  lastLoad: { ms: number; pins: number } | null = null;

  constructor(private readonly redis: Redis) {}

  /**
   * Brings the index up to date with every write stored before the call. Concurrent callers share a
   * sync, but only one that starts after they called (one already running may have read too early).
   */
  sync(): Promise<void> {
    if (!this.syncing) {
      this.syncing = this.runSync().finally(() => (this.syncing = null));
      return this.syncing;
    }
    this.queued ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.sync();
      });
    return this.queued;
  }

  private async runSync(): Promise<void> {
    if (!this.cursor) return this.load();
    const changes = await readPinChanges(this.redis, this.cursor);
    if (changes.reload) return this.load();
    if (changes.pinIds.length) await this.refetch(changes.pinIds);
    this.cursor = changes.cursor;
  }

  private async load(): Promise<void> {
    const started = Date.now();
    this.cursor = null;
    const cursor = await startCursor(this.redis); // before the scan: a write after it is in the feed
    const pins = await PinModel.collection.find({}, { projection: { client_id: 0, reservation_id: 0 } }).toArray();
    this.entries = new Map();
    this.valueMaps = new Map();
    this.numberLists = new Map();
    for (const pin of pins) this.put(toSearchDocument(pin as never));
    this.cursor = cursor;
    this.lastLoad = { ms: Date.now() - started, pins: pins.length };
  }

  private async refetch(pinIds: string[]): Promise<void> {
    const pins = await PinModel.collection
      .find({ _id: { $in: pinIds as never[] } }, { projection: { client_id: 0, reservation_id: 0 } })
      .toArray();
    const found = new Set<string>();
    for (const pin of pins) {
      const doc = toSearchDocument(pin as never);
      found.add(doc.pin_id);
      this.drop(doc.pin_id);
      this.put(doc);
    }
    for (const id of pinIds) if (!found.has(id)) this.drop(id);
  }

  private put(doc: PinSearchDocument) {
    this.entries.set(doc.pin_id, { doc, words: documentWords(doc), valuesOf: cachedValuesOf(doc) });
    for (const [field, map] of this.valueMaps) this.mapDoc(map, field, doc);
    for (const [field, list] of this.numberLists) list.add(doc, field);
  }

  private drop(pinId: string) {
    const old = this.entries.get(pinId);
    if (!old) return;
    this.entries.delete(pinId);
    for (const [field, list] of this.numberLists) list.remove(old.doc, field);
    for (const [field, map] of this.valueMaps) {
      for (const v of valuesAt(old.doc, field).values) {
        const key = valueKey(v);
        const ids = key === null ? undefined : map.get(key);
        ids?.delete(pinId);
        if (ids?.size === 0) map.delete(key!);
      }
    }
  }

  private mapDoc(map: Map<string, Set<string>>, field: string, doc: PinSearchDocument) {
    for (const v of valuesAt(doc, field).values) {
      const key = valueKey(v);
      if (key === null) continue;
      let ids = map.get(key);
      if (!ids) map.set(key, (ids = new Set()));
      ids.add(doc.pin_id);
    }
  }

  private valueMap(field: string): Map<string, Set<string>> {
    let map = this.valueMaps.get(field);
    if (!map) {
      map = new Map();
      for (const { doc } of this.entries.values()) this.mapDoc(map, field, doc);
      this.valueMaps.set(field, map);
    }
    return map;
  }

  private lookup(field: string, tokens: string[]): ReadonlySet<string> {
    const map = this.valueMap(field);
    const found = tokens.flatMap((token) =>
      tokenKeys(token)
        .map((key) => map.get(key))
        .filter((ids): ids is Set<string> => ids !== undefined),
    );
    if (found.length === 1) return found[0]; // the common case, not copied
    const out = new Set<string>();
    for (const ids of found) ids.forEach((id) => out.add(id));
    return out;
  }

  private numberList(field: string): NumberList {
    let list = this.numberLists.get(field);
    if (!list) {
      list = new NumberList();
      for (const { doc } of this.entries.values()) list.push(doc, field);
      list.sort();
      this.numberLists.set(field, list);
    }
    return list;
  }

  /** Pins with a number in [from, to] at the field (filter-eval's ranges: only numeric tokens match anything). */
  private range(
    field: string,
    from: string | null,
    to: string | null,
    fromOpen: boolean,
    toOpen: boolean,
  ): ReadonlySet<string> {
    const low = from === null ? -Infinity : numberOf(from);
    const high = to === null ? Infinity : numberOf(to);
    if (low === null || high === null) return new Set();
    return this.numberList(field).between(low, high, fromOpen, toOpen);
  }

  /** Pins that may match the filter (a superset; null for all), from the value maps of its `=` and IN parts. */
  private narrow(node: FilterNode | null): ReadonlySet<string> | null {
    if (!node) return null;
    switch (node.kind) {
      case 'compare':
        if (node.op === '=') return this.lookup(node.field, [node.value]);
        if (node.op === '>' || node.op === '>=')
          return this.range(node.field, node.value, null, node.op === '>', false);
        if (node.op === '<' || node.op === '<=')
          return this.range(node.field, null, node.value, false, node.op === '<');
        return null;
      case 'range':
        return this.range(node.field, node.from, node.to, false, false);
      case 'in':
        return this.lookup(node.field, node.values);
      case 'and': {
        const sets = node.children
          .map((c) => this.narrow(c))
          .filter((s): s is ReadonlySet<string> => s !== null)
          .sort((a, b) => a.size - b.size);
        if (sets.length === 0) return null;
        const [smallest, ...rest] = sets;
        if (rest.length === 0) return smallest;
        return new Set([...smallest].filter((id) => rest.every((s) => s.has(id))));
      }
      case 'or': {
        const sets = node.children.map((c) => this.narrow(c));
        if (sets.some((s) => s === null)) return null;
        const out = new Set<string>();
        for (const s of sets) s!.forEach((id) => out.add(id));
        return out;
      }
      default:
        return null;
    }
  }

  /** The visible pins that may match the filter; the exact filter still runs on each. */
  *candidates(filter: FilterNode | null, now = Date.now()): Generator<SourceDoc> {
    const ids = this.narrow(filter);
    const source = ids
      ? [...ids].map((id) => this.entries.get(id)).filter((e): e is SourceDoc => e !== undefined)
      : this.entries.values();
    for (const entry of source) {
      if (entry.doc.subscription_status === 'active' && entry.doc.subscription_expires_at > now) yield entry;
    }
  }
}

/** A field's numbers in ascending order, each with its pin (an array of numbers yields several). */
class NumberList {
  private values: number[] = [];
  private ids: string[] = [];

  /** Appends out of order: the first build, which sorts once at the end. */
  push(doc: PinSearchDocument, field: string) {
    for (const v of valuesAt(doc, field).values) {
      if (typeof v !== 'number') continue;
      this.values.push(v);
      this.ids.push(doc.pin_id);
    }
  }

  add(doc: PinSearchDocument, field: string) {
    for (const v of valuesAt(doc, field).values) {
      if (typeof v !== 'number') continue;
      const at = this.firstAtLeast(v, false);
      this.values.splice(at, 0, v);
      this.ids.splice(at, 0, doc.pin_id);
    }
  }

  remove(doc: PinSearchDocument, field: string) {
    for (const v of valuesAt(doc, field).values) {
      if (typeof v !== 'number') continue;
      for (let i = this.firstAtLeast(v, false); i < this.values.length && this.values[i] === v; i++) {
        if (this.ids[i] !== doc.pin_id) continue;
        this.values.splice(i, 1);
        this.ids.splice(i, 1);
        break;
      }
    }
  }

  /** Orders what `push` appended. */
  sort() {
    const order = this.values.map((_, i) => i).sort((a, b) => this.values[a] - this.values[b]);
    this.values = order.map((i) => this.values[i]);
    this.ids = order.map((i) => this.ids[i]);
  }

  /** The first index whose value is >= v (> v when `open`). */
  private firstAtLeast(v: number, open: boolean): number {
    let lo = 0;
    let hi = this.values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.values[mid] < v || (open && this.values[mid] === v)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  between(low: number, high: number, lowOpen: boolean, highOpen: boolean): Set<string> {
    const out = new Set<string>();
    for (let i = this.firstAtLeast(low, lowOpen); i < this.values.length; i++) {
      const v = this.values[i];
      if (v > high || (highOpen && v === high)) break;
      out.add(this.ids[i]);
    }
    return out;
  }
}

import type { AnyModel } from '../lib/any-model';
import { bulkWriteErrors } from '../lib/bulk-writes';

/**
 * Group commit for new documents: inserts that arrive within the same few milliseconds go to the
 * store as one insertMany, and each caller learns its own outcome. Under a burst of submits this
 * turns hundreds of single-document round trips into a handful, while a lone insert waits at most
 * `windowMs`.
 */
export function createInsertBatcher(model: AnyModel, opts: { windowMs?: number; maxBatch?: number } = {}) {
  const windowMs = opts.windowMs ?? 2;
  const maxBatch = opts.maxBatch ?? 200;
  let pending: { doc: Record<string, unknown>; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | null = null;

  async function flush() {
    timer = null;
    const batch = pending;
    pending = [];
    if (!batch.length) return;
    try {
      await model.collection.insertMany(batch.map((b) => b.doc) as never[], { ordered: false });
      batch.forEach((b) => b.resolve());
    } catch (err) {
      // Unordered: the others went in; only the documents named in writeErrors failed.
      const failed = new Set(bulkWriteErrors(err).map((e) => e.index));
      batch.forEach((b, i) => (failed.size && !failed.has(i) ? b.resolve() : b.reject(err)));
    }
  }

  return {
    insert(doc: Record<string, unknown>): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        pending.push({ doc, resolve, reject });
        if (pending.length >= maxBatch) void flush();
        else timer ??= setTimeout(() => void flush(), windowMs);
      });
    },
  };
}

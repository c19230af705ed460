import type { AnyModel } from './any-model';

/** One failed operation of an unordered bulk write or insertMany: its index in the batch and the error code. */
export interface BulkWriteError {
  index: number;
  code?: number;
  errmsg?: string;
}

/**
 * The operations an unordered bulk write reported as failed (the others were applied). The driver names them
 * in `writeErrors`, one error or several, with the code either on the error or on its `err`; an error without
 * any is not a bulk write's and yields none.
 */
export function bulkWriteErrors(err: unknown): BulkWriteError[] {
  const raw = (err as { writeErrors?: unknown }).writeErrors;
  const list = (Array.isArray(raw) ? raw : raw ? [raw] : []) as {
    index: number;
    code?: number;
    errmsg?: string;
    err?: { code?: number; errmsg?: string; index?: number };
  }[];
  return list.map((e) => ({
    index: e.index ?? e.err?.index ?? 0,
    code: e.code ?? e.err?.code,
    errmsg: e.errmsg ?? e.err?.errmsg,
  }));
}

const duplicateIndexes = (err: unknown): number[] | null => {
  const errors = bulkWriteErrors(err);
  if (!errors.length || !errors.every((e) => e.code === 11000)) return null;
  return errors.map((e) => e.index);
};

/**
 * Inserts documents whose ids are deterministic, leaving any that exist already as they are (a
 * retried activity, another job, wrote them); answers how many were new. One insertMany: the document engine
 * detects the duplicates on the _id index, with no read beforehand.
 */
export async function insertNew(model: AnyModel, docs: Record<string, unknown>[]): Promise<number> {
  return docs.length - (await insertReportingDuplicates(model, docs)).length;
}

/** Like insertNew, answering the indexes of the documents that existed already. */
export async function insertReportingDuplicates(model: AnyModel, docs: Record<string, unknown>[]): Promise<number[]> {
  if (!docs.length) return [];
  try {
    await model.collection.insertMany(docs as never[], { ordered: false });
    return [];
  } catch (err) {
    const dups = duplicateIndexes(err);
    if (!dups) throw err;
    return dups;
  }
}

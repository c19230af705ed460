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

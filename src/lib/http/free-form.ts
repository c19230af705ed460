import { AppError } from '../errors';

export interface FreeFormLimits {
  /** Levels of nested objects and arrays below the value itself. */
  maxDepth?: number;
  /** Keys and array items in the whole value. */
  maxEntries?: number;
  /** Status of a violation: 422 everywhere, 400 for content authoring (docs/decisions.md §3). */
  status?: 400 | 422;
}

/**
 * Checks an object a user may shape freely (page block data, rich-text attrs, and the credentials,
 * fingerprints, addresses and relay params of the agent areas) before it is stored or forwarded:
 * keys with a NUL byte, keys starting with `$` or containing `.` are refused (MongoDB rejects or
 * interprets them), and so are values nested too deep or too large, and arrays directly inside arrays
 * (FerretDB, the local engine, cannot store them: wrap the inner array in an object). The error names
 * the field path.
 */
export function checkFreeForm(value: unknown, field: string, limits: FreeFormLimits = {}): void {
  const { maxDepth = 16, maxEntries = 10_000, status = 422 } = limits;
  let entries = 0;
  const fail = (path: string, message: string): never => {
    const errors = [{ location: 'body', field: path, message }];
    throw new AppError(status, `Invalid ${path}: ${message}`, { errors });
  };
  const visit = (v: unknown, path: string, depth: number): void => {
    if (typeof v !== 'object' || v === null) return;
    if (depth > maxDepth) fail(path, `is nested deeper than ${maxDepth} levels`);
    if (Array.isArray(v)) {
      entries += v.length;
      if (entries > maxEntries) fail(field, `has more than ${maxEntries} keys and items`);
      v.forEach((item, i) => {
        if (Array.isArray(item)) fail(`${path}[${i}]`, 'is an array inside an array (wrap it in an object)');
        visit(item, `${path}[${i}]`, depth + 1);
      });
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      if (++entries > maxEntries) fail(field, `has more than ${maxEntries} keys and items`);
      const shown = JSON.stringify(key);
      if (key.includes('\u0000')) fail(path, `has a key with a NUL byte (${shown})`);
      if (key.startsWith('$')) fail(path, `has a key starting with "$" (${shown})`);
      if (key.includes('.')) fail(path, `has a key containing "." (${shown})`);
      visit(child, `${path}.${key}`, depth + 1);
    }
  };
  visit(value, field, 0);
}

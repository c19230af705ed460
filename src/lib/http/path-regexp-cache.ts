// The CommonJS module object itself must be patched (an ESM namespace import would be a copy).
// eslint-disable-next-line @typescript-eslint/no-require-imports
import pathToRegexpModule = require('path-to-regexp');

/**
 * express-openapi-validator (5.6) finds the operation of every request by compiling path-to-regexp
 * afresh for each declared path, on every request; with a hundred paths that is most of the CPU time
 * of a simple GET. pathToRegexp is a pure function of (path, options), so its results are memoised
 * here once per process. The validator reads the function from the module object at call time, so
 * replacing it there is enough; the cache holds one entry per declared path and option set.
 */
export function memoisePathToRegexp(): void {
  const mod = pathToRegexpModule as { pathToRegexp: typeof pathToRegexpModule.pathToRegexp & { memoised?: true } };
  if (mod.pathToRegexp.memoised) return;
  const original = mod.pathToRegexp;
  const cache = new Map<string, ReturnType<typeof original>>();
  const memoised = ((path: Parameters<typeof original>[0], options?: Parameters<typeof original>[1]) => {
    if (typeof path !== 'string') return original(path, options);
    // Called for every declared path on every request: the key is built from the options path-to-regexp
    // reads (the validator also passes `strict`), without serialising an object each time.
    const o = (options ?? {}) as NonNullable<typeof options> & { strict?: boolean };
    const key =
      `${path}\u0000${o.sensitive ? 1 : 0}${o.strict ? 1 : 0}` +
      `${o.end === false ? 0 : 1}${o.trailing === false ? 0 : 1}${o.delimiter ?? ''}`;
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = original(path, options);
      cache.set(key, compiled);
    }
    return compiled;
  }) as typeof mod.pathToRegexp;
  memoised.memoised = true;
  mod.pathToRegexp = memoised;
}

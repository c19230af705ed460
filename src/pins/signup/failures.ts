import { ApplicationFailure } from '@temporalio/common';

/** The innermost ApplicationFailure's type in a Temporal failure chain (workflow → activity → application). */
export function failureTypeOf(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; e && depth < 8; depth++) {
    if (e instanceof ApplicationFailure && e.type) return e.type;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

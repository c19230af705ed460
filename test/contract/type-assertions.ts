// What the type-level tests of test/contract (*.test-d.ts, checked by `npm run typecheck`) say of a type.

/** True when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type Same<A, B> = Equal<A, B> extends true ? true : never;
/** The N-th parameter of a service function. */
export type Input<F, N extends number> = F extends (...args: infer Args) => unknown ? Args[N] : never;

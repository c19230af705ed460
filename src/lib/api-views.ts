/**
 * The optional fields of a stored record as an API response shows them: each named field, null where the
 * record has none. Spread where the fields stand, so a view keeps its fields in the contract's order.
 */
export function orNull<T extends object, K extends keyof T>(
  doc: T,
  ...keys: K[]
): { [P in K]-?: NonNullable<T[P]> | null } {
  return Object.fromEntries(keys.map((k) => [k, doc[k] ?? null])) as { [P in K]-?: NonNullable<T[P]> | null };
}

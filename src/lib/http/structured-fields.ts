/**
 * The little of RFC 8941 (Structured Field Values for HTTP) the service writes itself: Strings, and Lists of
 * String Items with Integer parameters (the RateLimit fields). Anything else is refused, never guessed. What it
 * reads (the Idempotency-Key) is parsed by the structured-headers package.
 */

const STRING_CHARS = /^[\x20-\x7e]*$/;

/** An sf-string: printable ASCII in double quotes, `"` and `\` escaped with a backslash. */
export function serializeString(value: string): string {
  if (!STRING_CHARS.test(value)) throw new Error('a structured-field String holds printable ASCII only');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const MAX_INTEGER = 999_999_999_999_999;
const KEY = /^[a-z*][a-z0-9_.*-]*$/;

/** A List of String Items, each with Integer parameters in the order given: `"rpm";q=3;w=60, "rpd";q=100`. */
export function serializeStringList(items: { value: string; params: [string, number][] }[]): string {
  return items
    .map(({ value, params }) => {
      const serialized = params.map(([key, n]) => {
        if (!KEY.test(key)) throw new Error(`not a structured-field key: ${key}`);
        if (!Number.isInteger(n) || Math.abs(n) > MAX_INTEGER) throw new Error(`not a structured-field Integer: ${n}`);
        return `;${key}=${n}`;
      });
      return serializeString(value) + serialized.join('');
    })
    .join(', ');
}

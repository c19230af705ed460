/**
 * Trimming runs of characters from the ends of a string in one pass from each end. `s.replace(/[-_]+$/, '')`
 * restarts at every run of those characters that does not end the string and reads it to its end each time:
 * quadratic on a long run followed by anything else, and these strings come from callers.
 */

/** `s` without the trailing characters that `drop` accepts. */
export function trimEndWhere(s: string, drop: (char: string) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s[end - 1])) end--;
  return s.slice(0, end);
}

/** `s` without the leading and trailing characters that `drop` accepts. */
export function trimWhere(s: string, drop: (char: string) => boolean): string {
  let start = 0;
  while (start < s.length && drop(s[start])) start++;
  return trimEndWhere(s.slice(start), drop);
}

/** A test of one character against a character class: `oneOf(/[-_]/)`. */
export const oneOf =
  (charClass: RegExp) =>
  (char: string): boolean =>
    charClass.test(char);

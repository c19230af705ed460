/**
 * Text from the service made safe for a terminal. A name a tenant's user, an agent or a scraped web page gave a lead
 * or a watch reaches the command line's output as it was given; a terminal acts on what it reads, so such a name
 * could clear the screen, move the cursor to overwrite other lines, retitle the window, show a link to another place
 * than its text (OSC 8), or reorder what follows it (a bidi override shows "txt.exe" as "exe.txt"). What a terminal
 * acts on, or what reorders or hides text, is written out as an escape (`\x1b`, `\u202e`) instead:
 * - C0 controls (ESC starts every CSI and OSC sequence; BEL and ST end them; CR returns to the line's start), DEL,
 *   and C1 controls (U+009B is an 8-bit CSI, U+009D an 8-bit OSC);
 * - the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the line and paragraph separators,
 *   the interlinear annotation marks, and the tag characters (U+E0000–U+E007F: invisible, and they carry text an
 *   agent reading the output would take in).
 * Joiners (U+200C, U+200D) stay: scripts and emoji need them, and they hide nothing.
 */
const DEL_C1 = '\\u007f-\\u009f';
const REORDERING_OR_HIDING =
  '\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}';

const UNSAFE = new RegExp(`[\\u0000-\\u001f${DEL_C1}${REORDERING_OR_HIDING}]`, 'gu');
/** The same, but the line break (and a CR before it, as CSV's line ends) and the tab: a block's own layout. */
const UNSAFE_IN_BLOCK = new RegExp(
  `\\r(?!\\n)|[\\u0000-\\u0008\\v\\f\\u000e-\\u001f${DEL_C1}${REORDERING_OR_HIDING}]`,
  'gu',
);
/** What JSON.stringify leaves as it is of those (it escapes C0 itself). */
const UNSAFE_IN_JSON = new RegExp(`[${DEL_C1}${REORDERING_OR_HIDING}]`, 'gu');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

function written(char: string): string {
  const code = char.codePointAt(0)!;
  if (NAMED[char]) return NAMED[char];
  if (code < 0x100) return `\\x${hex(code, 2)}`;
  return code > 0xffff ? `\\u{${hex(code, 5)}}` : `\\u${hex(code, 4)}`;
}

/** One value on a line: everything a terminal would act on written out, line breaks too (no forged lines). */
export const terminalSafe = (text: string): string => text.replace(UNSAFE, written);

/** A block of lines: the same, but its line breaks and tabs stay. */
export const terminalSafeBlock = (text: string): string => text.replace(UNSAFE_IN_BLOCK, written);

/**
 * A line of output: the template's own text as it is, each value in it through terminalSafe. For what the command
 * line composes from the service's answers: `line\`${watch.watch_id} ${watch.name}\``.
 */
export function line(template: TemplateStringsArray, ...values: unknown[]): string {
  let out = template[0];
  values.forEach((value, i) => (out += terminalSafe(String(value)) + template[i + 1]));
  return out;
}

/**
 * JSON text of `value` that no terminal acts on: JSON.stringify escapes C0 controls, and the rest of the unsafe
 * characters (which JSON leaves as they are) become `\uXXXX` escapes (a surrogate pair for a tag character). The
 * same JSON value, to any parser.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (char) =>
    Array.from({ length: char.length }, (_, i) => `\\u${hex(char.charCodeAt(i), 4)}`).join(''),
  );
}

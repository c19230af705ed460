import { stringify } from 'csv-stringify/sync';
import type { Shift } from './shifts';

export const SHIFT_COLUMNS = [
  'actor_id', 'actor_kind', 'actor_name', 'role', 'started_at', 'ended_at', 'duration_minutes', 'event_count', 'shipped_count',
] as const;

/** Cells a spreadsheet would run as a formula (OWASP: = + - @, tab and carriage return first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell made inert for spreadsheets: a leading apostrophe keeps it text. Numbers stay numbers. */
export function neutraliseFormula(value: unknown): unknown {
  return typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value;
}

/** Shifts as CSV (RFC 4180 quoting by csv-stringify), one row per shift under a header row. */
export function shiftsCsv(shifts: Shift[]): string {
  return stringify(
    shifts.map((s) => SHIFT_COLUMNS.map((c) => neutraliseFormula(s[c]))),
    { header: true, columns: [...SHIFT_COLUMNS], cast: { number: String } },
  );
}

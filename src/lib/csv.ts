import { stringify, type Options } from 'csv-stringify/sync';

/** Cells a spreadsheet would run as a formula (OWASP CSV injection: = + - @, tab and carriage return first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell made inert for spreadsheets: a leading apostrophe keeps it text. Numbers stay numbers. */
export function neutraliseFormula(value: unknown): unknown {
  return typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value;
}

const text = (value: string) => neutraliseFormula(value) as string;

/**
 * The one CSV dialect of the service (RFC 4180: CRLF between records, quotes where needed). Every value
 * that becomes text passes through neutraliseFormula, whatever its type was: a list (joined with "; ")
 * or an object (as JSON) can start with a formula character too. Numbers are written as numbers.
 */
const OPTIONS: Options = {
  record_delimiter: 'windows',
  quote_record_delimiter: true, // a lone \r or \n inside a cell is quoted too, never taken for a record end
  cast: {
    string: text,
    number: String,
    bigint: String,
    boolean: String,
    date: (value) => value.toISOString(),
    object: (value) => text(Array.isArray(value) ? value.map(String).join('; ') : JSON.stringify(value)),
  },
};

/** One CSV record (with its CRLF) of the given cells; null and undefined are empty cells. */
export function csvRecord(cells: readonly unknown[]): string {
  return stringify([cells as unknown[]], OPTIONS);
}

/** A whole CSV document: the header row, then one record per row. */
export function csvDocument(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return stringify(rows as unknown[][], { ...OPTIONS, header: true, columns: [...columns] });
}

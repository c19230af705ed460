import { csvDocument } from '../lib/csv';
import type { Shift } from './shifts';

export const SHIFT_COLUMNS = [
  'actor_id',
  'actor_kind',
  'actor_name',
  'role',
  'started_at',
  'ended_at',
  'duration_minutes',
  'event_count',
  'shipped_count',
] as const;

/** Shifts as CSV (the service's one CSV writer, src/lib/csv.ts), one row per shift under a header row. */
export function shiftsCsv(shifts: Shift[]): string {
  return csvDocument(
    SHIFT_COLUMNS,
    shifts.map((s) => SHIFT_COLUMNS.map((c) => s[c])),
  );
}

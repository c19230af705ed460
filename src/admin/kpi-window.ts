import type { QueryParams } from '../lib/contract-types';
import { AppError } from '../lib/errors';

/** The KPI reports' query: a preset period, or a window from and to. */
type WindowQuery = Pick<QueryParams<'getKpis'>, 'period' | 'from' | 'to'>;
/** A preset window's name. */
export type Period = NonNullable<WindowQuery['period']>;

/** A window of whole UTC days: `from` and `to` inclusive; `period` names the preset, null for from/to. */
export interface KpiWindow {
  from: string;
  to: string;
  period: Period | null;
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (day: string, n: number) => isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));

function parseDay(value: string, field: string): string {
  const at = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2025-02-30 over into March; a real day survives the round trip.
  if (!DATE.test(value) || !Number.isFinite(at) || isoDay(new Date(at)) !== value) {
    throw AppError.invalid(`${field} must be a calendar date (YYYY-MM-DD)`, [
      { location: 'query', field, message: 'not a calendar date' },
    ]);
  }
  return value;
}

export function presetWindow(period: Period, now = new Date()): KpiWindow {
  const today = isoDay(now);
  const starts: Record<Period, () => [string, string]> = {
    today: () => [today, today],
    yesterday: () => [addDays(today, -1), addDays(today, -1)],
    last_7_days: () => [addDays(today, -6), today],
    last_30_days: () => [addDays(today, -29), today],
    last_90_days: () => [addDays(today, -89), today],
    month_to_date: () => [`${today.slice(0, 8)}01`, today],
    year_to_date: () => [`${today.slice(0, 5)}01-01`, today],
  };
  const [from, to] = starts[period]();
  return { from, to, period };
}

/**
 * The window a report covers (the interface's rule): `from`/`to` win over `period`; `from` alone ends
 * today, `to` alone starts 29 days earlier; `from` after `to` is 422.
 */
export function windowOf(query: WindowQuery, now = new Date()): KpiWindow {
  if (!query.from && !query.to) return presetWindow(query.period ?? 'last_30_days', now);
  const to = query.to ? parseDay(query.to, 'to') : isoDay(now);
  const from = query.from ? parseDay(query.from, 'from') : addDays(to, -29);
  if (from > to)
    throw AppError.invalid('from must not be after to', [{ location: 'query', field: 'from', message: 'after to' }]);
  return { from, to, period: null };
}

/** The window as a half-open range of instants, for queries: [start, end). */
export function windowRange(w: KpiWindow): { start: Date; end: Date } {
  return { start: new Date(`${w.from}T00:00:00Z`), end: new Date(Date.parse(`${w.to}T00:00:00Z`) + DAY_MS) };
}

/** Every day of the window, oldest first. */
export function daysOf(w: KpiWindow): string[] {
  const days: string[] = [];
  for (let d = w.from; d <= w.to; d = addDays(d, 1)) days.push(d);
  return days;
}

export const windowDays = (w: KpiWindow) => Math.round((Date.parse(w.to) - Date.parse(w.from)) / DAY_MS) + 1;

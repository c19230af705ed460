import type { SpendPeriod } from './integration.model';

const DAY_MS = 86_400_000;

/** The UTC day of an instant, YYYY-MM-DD. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** Start (inclusive) and end (exclusive) of the UTC spend period that holds `at`; weeks start on Monday. */
export function periodBounds(period: SpendPeriod, at: Date): { start: Date; end: Date } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const d = at.getUTCDate();
  if (period === 'daily') return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1)) };
  if (period === 'weekly') {
    const back = (at.getUTCDay() + 6) % 7; // days since Monday
    return { start: new Date(Date.UTC(y, m, d - back)), end: new Date(Date.UTC(y, m, d - back + 7)) };
  }
  return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
}

/** The days of the period up to and including `at`'s day, today first. */
export function periodDaysSoFar(period: SpendPeriod, at: Date): string[] {
  const { start } = periodBounds(period, at);
  const days: string[] = [];
  for (let t = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()); t >= start.getTime(); t -= DAY_MS)
    days.push(dayOf(new Date(t)));
  return days;
}

/** The last `n` UTC days ending with `at`'s day, oldest first. */
export function lastDays(n: number, at: Date): string[] {
  const today = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return Array.from({ length: n }, (_, i) => dayOf(new Date(today - (n - 1 - i) * DAY_MS)));
}

/** Whole seconds until `end`, at least 1 (a Retry-After value). */
export const secondsUntil = (end: number, now = Date.now()): number => Math.max(1, Math.ceil((end - now) / 1000));

/** Money is counted in millionths (integers) in Redis, so concurrent additions are exact. */
export const toMicros = (amount: number): number => Math.round(amount * 1_000_000);
export const fromMicros = (micros: number): number => Math.round(micros) / 1_000_000;

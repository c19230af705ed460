import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import type { components } from '@contract';

export type WatchCadence = components['schemas']['WatchCadence'];

/** How many runs the form previews before saving. */
export const PREVIEW_RUNS = 5;

/**
 * The next runs of an interval cadence: every `seconds` counted from the Unix epoch (86400 runs at 00:00 UTC), as
 * the service's schedule counts them; the first strictly after `from`.
 */
export function nextIntervalRuns(seconds: number, from: Date, count = PREVIEW_RUNS): Date[] {
  if (!Number.isInteger(seconds) || seconds <= 0) return [];
  const step = seconds * 1000;
  const first = Math.floor(from.getTime() / step) * step + step;
  return Array.from({ length: count }, (_, i) => new Date(first + i * step));
}

export type CronPreview = { ok: true; runs: Date[]; description: string } | { ok: false; error: string };

/**
 * The next runs of a cron expression read in `timeZone`, with the expression in words. Temporal (which runs the
 * schedule) needs the day of the month and the day of the week to match both when both are restricted, where
 * cron-parser takes either: such runs are filtered to those matching both.
 */
export function nextCronRuns(expression: string, timeZone: string, from: Date, count = PREVIEW_RUNS): CronPreview {
  const text = expression.trim();
  if (!text) return { ok: false, error: 'Enter a cron expression' };
  if (!text.startsWith('@') && text.split(/\s+/).length !== 5)
    return { ok: false, error: 'A cron expression has five fields: minute hour day-of-month month day-of-week' };
  try {
    const cron = CronExpressionParser.parse(text, { tz: timeZone || 'UTC', currentDate: from });
    const { dayOfMonth, dayOfWeek } = cron.fields;
    const both = !dayOfMonth.isWildcard && !dayOfWeek.isWildcard;
    const dates = new Set<unknown>(dayOfMonth.values);
    const days = new Set<unknown>(dayOfWeek.values.map((d) => (d === 7 ? 0 : d)));
    const runs: Date[] = [];
    for (let tries = 0; runs.length < count && tries < 5000 && cron.hasNext(); tries++) {
      const next = cron.next();
      if (both && !(dates.has(next.getDate()) && days.has(next.getDay()))) continue;
      runs.push(next.toDate());
    }
    if (!runs.length) return { ok: false, error: 'This expression never runs' };
    return { ok: true, runs, description: describeCron(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A cron expression in words ("At 09:30 AM, Monday through Friday"), or the expression itself. */
export function describeCron(expression: string): string {
  try {
    return cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return expression;
  }
}

const UNITS: [number, string][] = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** An interval in words: "every 2 hours", "every 90 minutes". */
export function describeInterval(seconds: number): string {
  const [size, unit] = UNITS.find(([s]) => seconds % s === 0) ?? [1, 'second'];
  const n = seconds / size;
  return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
}

/** A saved cadence in words. */
export function describeCadence(cadence: WatchCadence): string {
  if (cadence.interval_seconds) return describeInterval(cadence.interval_seconds);
  if (cadence.cron) return `${describeCron(cadence.cron)} (${cadence.time_zone ?? 'UTC'})`;
  return '—';
}

/** A run's time in the watch's own time zone ("Mon 09:30"), shown beside the user's. */
export function inZone(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit', timeZone }).format(
    date,
  );
}

/** The IANA time zones the browser knows, the user's own first. */
export function timeZones(): string[] {
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [own, ...['UTC', ...all].filter((z) => z !== own)];
}

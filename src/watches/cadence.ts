import type { ScheduleSpec } from '@temporalio/client';
import { CronExpressionParser } from 'cron-parser';
import { AppError } from '../lib/errors';

/** When a watch runs: every `interval_seconds`, or at the times of a cron expression read in a time zone. */
export interface Cadence {
  interval_seconds?: number;
  cron?: string;
  time_zone?: string;
}

/** The five fields in order, as cron-parser names them and as a message names them. */
const FIELDS = [
  { key: 'minute', name: 'minute' },
  { key: 'hour', name: 'hour' },
  { key: 'dayOfMonth', name: 'day of month' },
  { key: 'month', name: 'month' },
  { key: 'dayOfWeek', name: 'day of week' },
] as const;

/** The shorthands Temporal reads, as the five fields they stand for. */
const SHORTHANDS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/**
 * One item of a field in the syntax both Temporal and cron-parser read: `*`, a number or a three-letter name, an
 * optional range end, an optional step. cron-parser also reads L, W, `#`, `?` and H, which Temporal does not
 * (it reads `#` as the start of a comment), so those are refused before the library sees them.
 */
const ITEM = /^(?:\*|\d{1,2}|[a-z]{3})(?:-(?:\d{1,2}|[a-z]{3}))?(?:\/\d{1,2})?$/i;

class CronError extends Error {}

export interface CronTimes {
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
}

/**
 * The values one field matches, read by cron-parser with the other four fields `*` (so a message names the field,
 * and the fields combine as Temporal combines them: see shortestGapMinutes).
 */
function fieldValues(fields: string[], index: number): number[] {
  const { key, name } = FIELDS[index];
  const text = fields[index];
  const bad = text.split(',').find((item) => !ITEM.test(item));
  if (bad !== undefined) throw new CronError(`${name} "${bad}" is not a value, range or step Temporal reads`);
  const alone = FIELDS.map((_, i) => (i === index ? text : '*')).join(' ');
  try {
    return CronExpressionParser.parse(alone, { tz: 'UTC' }).fields[key].values.map(Number);
  } catch (err) {
    throw new CronError(`${name} "${text}": ${(err as Error).message}`);
  }
}

/** A five-field cron expression (or a shorthand) as the sets of values it matches; a CronError says what is wrong. */
function parseCron(expression: string): CronTimes {
  const text = expression.trim();
  const fields = (SHORTHANDS[text.toLowerCase()] ?? text).split(/ +/);
  if (fields.length !== 5)
    throw new CronError(
      `it has ${fields.length} field${fields.length === 1 ? '' : 's'}; five are needed (minute hour day-of-month ` +
        'month day-of-week), or one of @hourly, @daily, @weekly, @monthly, @yearly',
    );
  const [minutes, hours, days, months, weekdays] = fields.map((_, i) => fieldValues(fields, i));
  return {
    minutes: [...minutes].sort((a, b) => a - b),
    hours: [...hours].sort((a, b) => a - b),
    days: new Set(days),
    months: new Set(months),
    // 7 is Sunday too, as Temporal (and cron-parser) read it.
    weekdays: new Set(weekdays.map((d) => d % 7)),
  };
}

const DAY_MS = 86_400_000;
/** Weekdays and leap years repeat every 28 years (within a century): a day that ever matches matches within them. */
const CYCLE_DAYS = 28 * 365 + 7;

/**
 * The shortest time between two runs of a cron expression, in minutes, on the clock of its time zone; null when it
 * never runs. The day of the month and the day of the week must both match (as Temporal reads cron).
 */
export function shortestGapMinutes(times: CronTimes): number | null {
  const start = Date.UTC(2024, 0, 1);
  const matching: number[] = [];
  for (let day = 0; day < CYCLE_DAYS; day++) {
    const d = new Date(start + day * DAY_MS);
    if (times.days.has(d.getUTCDate()) && times.months.has(d.getUTCMonth() + 1) && times.weekdays.has(d.getUTCDay()))
      matching.push(day);
  }
  if (!matching.length) return null;
  const ofDay = times.hours.flatMap((h) => times.minutes.map((m) => h * 60 + m));
  let gap = Infinity;
  for (let i = 1; i < ofDay.length; i++) gap = Math.min(gap, ofDay[i] - ofDay[i - 1]);
  const [first, last] = [ofDay[0], ofDay[ofDay.length - 1]];
  for (let i = 1; i < matching.length; i++) gap = Math.min(gap, (matching[i] - matching[i - 1]) * 1440 - last + first);
  return gap;
}

/** Whether the runtime knows the IANA time zone (Temporal's server reads the same database). */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const invalid = (field: string, message: string, detail = message) =>
  AppError.invalid(detail, [{ location: 'body', field: `cadence.${field}`, message }]);

/**
 * Checks a cadence against the contract's rules and the minimum interval (seconds): exactly one of interval_seconds
 * and cron, time_zone only with cron, a cron expression that Temporal reads and that runs, no two runs closer than
 * `minIntervalSeconds`. Answers the cadence as stored (time_zone UTC when omitted); refuses with 422.
 */
export function checkCadence(cadence: Cadence, minIntervalSeconds: number): Cadence {
  const { interval_seconds: every, cron, time_zone: zone } = cadence;
  if ((every === undefined) === (cron === undefined))
    throw AppError.invalid('Give the cadence either interval_seconds or cron (exactly one)', [
      { location: 'body', field: 'cadence', message: 'needs exactly one of interval_seconds and cron' },
    ]);
  const tooOften = (seconds: number) =>
    `runs as often as every ${seconds} seconds; watches run at most every ${minIntervalSeconds} seconds ` +
    '(WATCH_MIN_INTERVAL_SECONDS)';
  if (every !== undefined) {
    if (zone !== undefined)
      throw invalid('time_zone', 'applies to cron only (an interval is counted in UTC from the Unix epoch)');
    if (every < minIntervalSeconds) throw invalid('interval_seconds', tooOften(every));
    return { interval_seconds: every };
  }
  let times: CronTimes;
  try {
    times = parseCron(cron!);
  } catch (err) {
    if (!(err instanceof CronError)) throw err;
    throw invalid('cron', err.message, `Invalid cron expression: ${err.message}`);
  }
  const gap = shortestGapMinutes(times);
  if (gap === null) throw invalid('cron', 'never runs (no day matches its day of month, month and day of week)');
  if (gap * 60 < minIntervalSeconds) throw invalid('cron', tooOften(gap * 60));
  const timeZone = zone ?? 'UTC';
  if (!knownTimeZone(timeZone)) throw invalid('time_zone', `${timeZone} is not an IANA time zone`);
  return { cron: cron!.trim(), time_zone: timeZone };
}

/** The cadence as a Temporal Schedule's spec. */
export function scheduleSpecOf(cadence: Cadence): ScheduleSpec {
  return cadence.interval_seconds !== undefined
    ? { intervals: [{ every: cadence.interval_seconds * 1000 }] }
    : { cronExpressions: [cadence.cron!], timezone: cadence.time_zone ?? 'UTC' };
}

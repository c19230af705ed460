import type { ScheduleSpec } from '@temporalio/client';
import { AppError } from '../lib/errors';

/** When a watch runs: every `interval_seconds`, or at the times of a cron expression read in a time zone. */
export interface Cadence {
  interval_seconds?: number;
  cron?: string;
  time_zone?: string;
}

interface Field {
  name: string;
  min: number;
  max: number;
  /** Names standing for numbers (months from 1, days of the week from 0). */
  names?: string[];
  first?: number;
}

const FIELDS: Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
    first: 1,
  },
  // 7 is Sunday too, as Temporal (and most crons) read it.
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'], first: 0 },
];

/** The shorthands Temporal reads, as the five fields they stand for. */
const SHORTHANDS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@hourly': '0 * * * *',
};

class CronError extends Error {}

/** One value of a field: a number in its range, or one of its names. */
function valueOf(text: string, field: Field): number {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + (field.first ?? 0);
  if (!/^\d{1,2}$/.test(text)) throw new CronError(`${field.name} "${text}" is not a number or a name of one`);
  const n = Number(text);
  if (n < field.min || n > field.max) throw new CronError(`${field.name} ${n} is not in ${field.min}-${field.max}`);
  return n;
}

/** The values one cron field matches (`*`, `a`, `a-b`, each with an optional `/step`, comma-separated). */
function fieldValues(text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const [range, step, extra] = item.split('/');
    if (extra !== undefined || range === '')
      throw new CronError(`${field.name} "${item}" is not a value, range or step`);
    let every = 1;
    if (step !== undefined) {
      if (!/^\d{1,2}$/.test(step) || Number(step) < 1)
        throw new CronError(`${field.name} step "${step}" is not a whole number from 1`);
      every = Number(step);
    }
    let [from, to] = [field.min, field.max];
    if (range !== '*') {
      const bounds = range.split('-');
      if (bounds.length > 2) throw new CronError(`${field.name} "${range}" is not a value or a range a-b`);
      from = valueOf(bounds[0], field);
      // `a/n` runs from a to the end of the field, as `a-max/n`.
      to = bounds.length === 2 ? valueOf(bounds[1], field) : step !== undefined ? field.max : from;
      if (to < from) throw new CronError(`${field.name} range ${range} runs backwards`);
    }
    for (let v = from; v <= to; v += every) values.add(v);
  }
  if (field.name === 'day of week' && values.delete(7)) values.add(0);
  return values;
}

export interface CronTimes {
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
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
  const [minutes, hours, days, months, weekdays] = fields.map((f, i) => fieldValues(f, FIELDS[i]));
  return {
    minutes: [...minutes].sort((a, b) => a - b),
    hours: [...hours].sort((a, b) => a - b),
    days,
    months,
    weekdays,
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

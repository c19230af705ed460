import type { Cadence } from './digest-settings.model';
import { utcDay } from './shifts';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
export const SEND_HOUR_UTC = 6;

/** The latest send slot at or before `now`: 06:00 UTC (daily) or Monday 06:00 UTC (weekly). */
export function slotAtOrBefore(cadence: Exclude<Cadence, 'off'>, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), SEND_HOUR_UTC);
  let slot = today <= now.getTime() ? today : today - DAY_MS;
  if (cadence === 'weekly') {
    const daysSinceMonday = (new Date(slot).getUTCDay() + 6) % 7;
    slot -= daysSinceMonday * DAY_MS;
  }
  return new Date(slot);
}

export const periodLength = (cadence: Exclude<Cadence, 'off'>) => (cadence === 'daily' ? DAY_MS : 7 * DAY_MS);

/** A digest is due when the current slot has no digest yet (never sent, or sent before the slot). */
export function isDue(s: { cadence: Cadence; last_sent_at: Date | null }, now: Date): boolean {
  if (s.cadence === 'off') return false;
  return !s.last_sent_at || s.last_sent_at < slotAtOrBefore(s.cadence, now);
}

/** When the next digest goes out: the next hourly tick if one is due now, otherwise the next slot. */
export function nextDueAt(s: { cadence: Cadence; last_sent_at: Date | null }, now: Date): Date | null {
  if (s.cadence === 'off') return null;
  if (isDue(s, now)) return new Date((Math.floor(now.getTime() / HOUR_MS) + 1) * HOUR_MS);
  return new Date(slotAtOrBefore(s.cadence, now).getTime() + periodLength(s.cadence));
}

/**
 * The period a digest sent now covers: the full day or week before the current slot. Its key
 * (`daily-2025-03-14`, `weekly-2025-03-10`) is what makes a send once-only per client and period.
 */
export function digestPeriod(cadence: Exclude<Cadence, 'off'>, now: Date) {
  const slot = slotAtOrBefore(cadence, now);
  return { key: `${cadence}-${utcDay(slot)}`, start: new Date(slot.getTime() - periodLength(cadence)), end: slot };
}

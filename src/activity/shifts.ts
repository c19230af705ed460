import { AppError } from '../lib/errors';
import type { ActorKind, ActorRole, ShippedKind } from './activity-event.model';

export const DEFAULT_GAP_MINUTES = 30;
export const MAX_WINDOW_DAYS = 31;
/** How far beyond the window a shift that crosses its edge is followed. */
export const EDGE_REACH_MS = 24 * 3600_000;
const DAY_MS = 24 * 3600_000;

export interface ShiftWindow {
  from: string;
  to: string;
  /** First instant of `from` and first instant after `to` (UTC). */
  start: Date;
  end: Date;
}

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The window of a shift query: `date`, or `from`..`to` (inclusive, at most 31 days; either alone is a
 * one-day window), or today (UTC).
 */
export function shiftWindow(q: { date?: string; from?: string; to?: string }, now = new Date()): ShiftWindow {
  if (q.date && (q.from || q.to)) {
    throw AppError.invalid('Give either date or from/to, not both', [
      { location: 'query', field: 'date', message: 'not combinable with from/to' },
    ]);
  }
  const from = q.date ?? q.from ?? q.to ?? utcDay(now);
  const to = q.date ?? q.to ?? q.from ?? from;
  const start = dayStart(from);
  const end = new Date(dayStart(to).getTime() + DAY_MS);
  if (start >= end)
    throw AppError.invalid('from is after to', [{ location: 'query', field: 'from', message: 'must not be after to' }]);
  if (end.getTime() - start.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    throw AppError.invalid(`The window spans more than ${MAX_WINDOW_DAYS} days`, [
      { location: 'query', field: 'to', message: `at most ${MAX_WINDOW_DAYS} days from \`from\`, inclusive` },
    ]);
  }
  return { from, to, start, end };
}

/** The fields of an event that shifts are built from. */
export interface ShiftEvent {
  actor_id: string;
  actor_kind: ActorKind;
  actor_name: string | null;
  role: ActorRole;
  shipped: ShippedKind | null;
  at: Date;
}

export interface Shift {
  actor_id: string;
  actor_kind: ActorKind;
  actor_name: string | null;
  role: ActorRole;
  started_at: string;
  ended_at: string;
  duration_minutes: number;
  event_count: number;
  shipped_count: number;
}

interface OpenShift {
  first: ShiftEvent;
  last: ShiftEvent;
  events: number;
  shipped: number;
}

function close(s: OpenShift): Shift & { start: number; end: number } {
  const start = s.first.at.getTime();
  const end = s.last.at.getTime();
  return {
    actor_id: s.last.actor_id,
    actor_kind: s.last.actor_kind,
    actor_name: s.last.actor_name,
    role: s.last.role,
    started_at: s.first.at.toISOString(),
    ended_at: s.last.at.toISOString(),
    duration_minutes: Math.floor((end - start) / 60_000),
    event_count: s.events,
    shipped_count: s.shipped,
    start,
    end,
  };
}

/**
 * Splits events (in time order) into shifts: per actor, consecutive events less than `gapMinutes`
 * apart belong to one shift; a pause of gapMinutes or more starts a new one. Keeps the shifts that
 * overlap [windowStart, windowEnd), ordered by start.
 */
export function buildShifts(
  events: Iterable<ShiftEvent>,
  gapMinutes: number,
  windowStart: Date,
  windowEnd: Date,
): Shift[] {
  const gapMs = gapMinutes * 60_000;
  const open = new Map<string, OpenShift>();
  const done: ReturnType<typeof close>[] = [];
  for (const e of events) {
    const current = open.get(e.actor_id);
    if (current && e.at.getTime() - current.last.at.getTime() < gapMs) {
      current.last = e;
      current.events++;
      if (e.shipped) current.shipped++;
    } else {
      if (current) done.push(close(current));
      open.set(e.actor_id, { first: e, last: e, events: 1, shipped: e.shipped ? 1 : 0 });
    }
  }
  for (const s of open.values()) done.push(close(s));
  const ws = windowStart.getTime();
  const we = windowEnd.getTime();
  return done
    .filter((s) => s.end >= ws && s.start < we)
    .sort((a, b) => a.start - b.start || (a.actor_id < b.actor_id ? -1 : a.actor_id > b.actor_id ? 1 : 0))
    .map(({ start: _s, end: _e, ...shift }) => shift);
}

/** One bucket per UTC hour from the shift's first to its last hour. */
export function hourlyBuckets(events: { at: Date; shipped: ShippedKind | null }[], startedAt: Date, endedAt: Date) {
  const first = Math.floor(startedAt.getTime() / 3600_000);
  const last = Math.floor(endedAt.getTime() / 3600_000);
  const buckets = Array.from({ length: last - first + 1 }, (_, i) => ({
    hour: new Date((first + i) * 3600_000).toISOString(),
    events: 0,
    shipped: 0,
  }));
  for (const e of events) {
    const b = buckets[Math.floor(e.at.getTime() / 3600_000) - first];
    if (!b) continue;
    b.events++;
    if (e.shipped) b.shipped++;
  }
  return buckets;
}

import type { Defaulted, QueryParams } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { clientDirectory } from '../clients/client-directory';
import {
  ActivityEventModel,
  SHIPPED_KINDS,
  eventIdRange,
  type ActivityEventDoc,
  type ShippedKind,
} from './activity-event.model';
import { EDGE_REACH_MS, buildShifts, hourlyBuckets, shiftWindow, type Shift, type ShiftEvent } from './shifts';

/** Which shifts to list (listShifts and exportShifts take the same query), the gap that ends a shift given. */
export type ShiftQuery = Defaulted<QueryParams<'listShifts' | 'exportShifts'>, 'gap_minutes'>;

const SHIFT_FIELDS = { _id: 0, actor_id: 1, actor_kind: 1, actor_name: 1, role: 1, shipped: 1, at: 1 } as const;
const MAX_DETAIL_SPAN_MS = 33 * 24 * 3600_000;

/** One client's events from `start` to `end` (exclusive) in time order, through the `_id` index. */
export function eventsBetween<K extends keyof ActivityEventDoc>(
  clientId: string,
  start: Date,
  end: Date,
  fields: Record<string, 0 | 1>,
  filter: { actor_id?: string; role?: ActivityEventDoc['role'] } = {},
) {
  return ActivityEventModel.find({ client_id: clientId, _id: eventIdRange(clientId, start, end), ...filter }, fields)
    .sort({ _id: 1 })
    .lean<Pick<ActivityEventDoc, K>[]>();
}

/** A client actor is named by its client's name, which is read at query time (it can change). */
async function nameClientActors(clientId: string, shifts: { actor_kind: string; actor_name: string | null }[]) {
  if (!shifts.some((s) => s.actor_kind === 'client')) return;
  const client = await clientDirectory.profile(clientId);
  for (const s of shifts) if (s.actor_kind === 'client') s.actor_name = client?.name ?? null;
}

export async function listShifts(clientId: string, q: ShiftQuery) {
  const window = shiftWindow(q);
  const filter = { ...(q.actor_id ? { actor_id: q.actor_id } : {}), ...(q.role ? { role: q.role } : {}) };
  const events = await eventsBetween<keyof ShiftEvent>(
    clientId,
    new Date(window.start.getTime() - EDGE_REACH_MS),
    new Date(window.end.getTime() + EDGE_REACH_MS),
    SHIFT_FIELDS,
    filter,
  );
  const shifts: Shift[] = buildShifts(events as ShiftEvent[], q.gap_minutes, window.start, window.end);
  await nameClientActors(clientId, shifts);
  return { from: window.from, to: window.to, gap_minutes: q.gap_minutes, shifts, total: shifts.length };
}

export async function shiftDetail(clientId: string, q: QueryParams<'getShiftDetail'>) {
  const start = new Date(q.started_at);
  const end = new Date(q.ended_at);
  if (end < start)
    throw AppError.invalid('ended_at is before started_at', [
      { location: 'query', field: 'ended_at', message: 'must not be before started_at' },
    ]);
  if (end.getTime() - start.getTime() > MAX_DETAIL_SPAN_MS) {
    throw AppError.invalid('The span is longer than any shift can be', [
      { location: 'query', field: 'ended_at', message: 'at most 33 days after started_at' },
    ]);
  }
  const events = await eventsBetween<'actor_kind' | 'role' | 'shipped' | 'subject_id' | 'label' | 'action' | 'at'>(
    clientId,
    start,
    new Date(end.getTime() + 1),
    { _id: 0, actor_kind: 1, role: 1, shipped: 1, subject_id: 1, label: 1, action: 1, at: 1 },
    { actor_id: q.actor_id },
  );
  if (!events.length) throw AppError.notFound('Shift not found');
  const shipped = Object.fromEntries(
    SHIPPED_KINDS.map((k) => [k, [] as { id: string; label: string; at: string }[]]),
  ) as Record<ShippedKind, { id: string; label: string; at: string }[]>;
  for (const e of events) {
    if (e.shipped)
      shipped[e.shipped].push({
        id: e.subject_id ?? '',
        label: e.label ?? e.subject_id ?? e.action,
        at: e.at.toISOString(),
      });
  }
  const last = events[events.length - 1];
  return {
    actor_id: q.actor_id,
    actor_kind: last.actor_kind,
    role: last.role,
    started_at: start.toISOString(),
    ended_at: end.toISOString(),
    hourly: hourlyBuckets(events, start, end),
    shipped,
  };
}

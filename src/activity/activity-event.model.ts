import { Schema, model } from 'mongoose';
import { tenantOwned } from '../lib/tenancy';

export const ACTOR_KINDS = ['user', 'agent', 'client'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];
export const ACTOR_ROLES = ['super_admin', 'brand_admin', 'client_user', 'agent'] as const;
export type ActorRole = (typeof ACTOR_ROLES)[number];

/** What a shift counts as shipped; the lists of ShiftDetail.shipped. */
export const SHIPPED_KINDS = [
  'posts_published',
  'pages_published',
  'jobs_completed',
  'research_completed',
  'pins_claimed',
] as const;
export type ShippedKind = (typeof SHIPPED_KINDS)[number];

/**
 * One activity event: who (actor) did what (action, an operationId or an outcome name such as
 * `job.completed`) to which subject, when. `_id` starts with the client and the ISO time, so one
 * client's events in a window are one `_id` range (the only index FerretDB uses) and a retried
 * recording of the same outcome (same key) is stored once.
 */
const activityEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    actor_id: { type: String, required: true },
    actor_kind: { type: String, enum: ACTOR_KINDS, required: true },
    actor_name: { type: String, default: null },
    role: { type: String, enum: ACTOR_ROLES, required: true },
    action: { type: String, required: true },
    subject_kind: { type: String, default: null },
    subject_id: { type: String, default: null },
    shipped: { type: String, enum: [...SHIPPED_KINDS, null], default: null },
    label: { type: String, default: null },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
activityEventSchema.index({ client_id: 1, at: 1 });
activityEventSchema.index({ client_id: 1, subject_id: 1 });
activityEventSchema.plugin(tenantOwned);

export interface ActivityEventDoc {
  _id: string;
  client_id: string;
  actor_id: string;
  actor_kind: ActorKind;
  actor_name: string | null;
  role: ActorRole;
  action: string;
  subject_kind: string | null;
  subject_id: string | null;
  shipped: ShippedKind | null;
  label: string | null;
  at: Date;
}

export const ActivityEventModel = model('ActivityEvent', activityEventSchema, 'activity_events');

/** The `_id` range of one client's events from `from` (inclusive) to `to` (exclusive). */
export function eventIdRange(clientId: string, from: Date, to: Date) {
  return { $gte: `${clientId}|${from.toISOString()}`, $lt: `${clientId}|${to.toISOString()}` };
}

export function eventId(clientId: string, at: Date, key: string): string {
  return `${clientId}|${at.toISOString()}|${key}`;
}

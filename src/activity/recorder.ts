import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import { appendOrStore, parseTimed, type DrainedStream } from '../lib/stream-drain';
import type { Caller } from '../lib/tenancy';
import {
  ActivityEventModel,
  eventId,
  type ActivityEventDoc,
  type ActorKind,
  type ActorRole,
  type ShippedKind,
} from './activity-event.model';
import { bulkWriteErrors } from '../lib/bulk-writes';
import { isDuplicateKeyError } from '../lib/errors';

/** The Redis stream events wait in until the worker's drain stores them in MongoDB. */
const ACTIVITY_STREAM = 'activity:events';

export interface ActivityActor {
  id: string;
  kind: ActorKind;
  name: string | null;
  role: ActorRole;
}

/** One thing to record; see docs/activity.md "Recording an outcome". */
export interface ActivityInput {
  clientId: string;
  actor: ActivityActor;
  /** An operationId for API actions, a dotted outcome name (`job.completed`, `auth.login`) otherwise. */
  action: string;
  subject?: { kind: string; id: string } | null;
  /** Set when the event is something a shift shipped (a published post, a completed job, a claimed pin). */
  shipped?: ShippedKind | null;
  /** Title, slug or query of the subject, shown in shift details and digests. */
  label?: string | null;
  at?: Date;
  /**
   * Makes recording idempotent: the same key and `at` are stored once, so an activity that is retried
   * records its outcome once. Leave it out for one-off actions.
   */
  key?: string;
}

/** The actor a request acts as: the user, the agent token, or the client's credential triple. */
export function actorOf(caller: Caller): ActivityActor | null {
  if (caller.kind === 'user' && caller.userId)
    return { id: caller.userId, kind: 'user', name: caller.email, role: caller.role };
  if (caller.kind === 'agent' && caller.tokenId) {
    const token = caller.accessToken as { project_name?: string | null } | undefined;
    return { id: caller.tokenId, kind: 'agent', name: token?.project_name ?? null, role: 'agent' };
  }
  if (caller.kind === 'client' && caller.clientId)
    return { id: caller.clientId, kind: 'client', name: null, role: 'client_user' };
  return null;
}

export function toEventDoc(input: ActivityInput): ActivityEventDoc {
  const at = input.at ?? new Date();
  return {
    _id: eventId(input.clientId, at, input.key ?? randomUUID()),
    client_id: input.clientId,
    actor_id: input.actor.id,
    actor_kind: input.actor.kind,
    actor_name: input.actor.name,
    role: input.actor.role,
    action: input.action,
    subject_kind: input.subject?.kind ?? null,
    subject_id: input.subject?.id ?? null,
    shipped: input.shipped ?? null,
    label: input.label ?? null,
    at,
  };
}

/** Stores events in MongoDB; events stored before (a redelivered batch, a retried outcome) are skipped. */
export async function storeEvents(docs: ActivityEventDoc[]): Promise<void> {
  if (!docs.length) return;
  try {
    await ActivityEventModel.insertMany(docs, { ordered: false, lean: true });
  } catch (err) {
    const failed = bulkWriteErrors(err);
    const duplicates = failed.length
      ? failed.every((e) => isDuplicateKeyError({ code: e.code, message: e.errmsg }))
      : isDuplicateKeyError(err);
    if (!duplicates) throw err;
  }
}

export interface ActivityRecorder {
  /**
   * Records one event durably before it returns: appended to the Redis stream (append-only file),
   * or, if Redis does not answer, written to MongoDB directly. Throws only if neither took it.
   */
  record(input: ActivityInput): Promise<void>;
}

/** The drain's view of the activity stream (src/lib/stream-drain.ts), run by every worker. */
export const activityStream: DrainedStream<ActivityEventDoc> = {
  stream: ACTIVITY_STREAM,
  group: 'activity-drain',
  parse: parseTimed,
  store: storeEvents,
};

export function createActivityRecorder(redis: Redis, logger: Logger): ActivityRecorder {
  return {
    async record(input) {
      const doc = toEventDoc(input);
      await appendOrStore(redis, logger, activityStream, doc, {
        fields: { action: doc.action },
        message: 'activity: Redis did not take the event; writing it to MongoDB',
      });
    },
  };
}

import type Redis from 'ioredis';
import type { JsonAnswer } from '../lib/contract-types';
import type { Logger } from '../lib/logger';
import type { CredentialCheck, RevocationReason } from '../lib/tenancy';
import { isStreamId, type EventBus, type JobEvent } from './event-bus';
import { createEventHub } from './event-hub';
import { createStreamLeases } from './stream-leases';

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}

/** One message of an event stream; `retryMs` asks the caller to wait that long before reconnecting. */
export interface StreamFrame {
  event: string;
  data: unknown;
  id?: string;
  retryMs?: number;
}

/** Where a stream's frames go: the caller's connection, however it carries them. */
export interface StreamSink {
  /** Begins the answer; false when the caller has already gone (nothing is sent then). */
  open(): boolean;
  send(frame: StreamFrame): void;
  end(): void;
  /** Calls `fn` once the connection closes, from either side. */
  onClose(fn: () => void): void;
  /** Ends the stream as the service stops: the caller is told to reconnect after `retryMs` (to another process). */
  goodbye(retryMs: number): void;
  readonly closed: boolean;
}

/** How long a caller whose stream ended with the process waits before it reconnects (with its Last-Event-ID). */
export const RECONNECT_AFTER_STOP_MS = 1000;

const REVOKED_DETAIL: Record<RevocationReason, string> = {
  session_ended: 'The session this stream was opened with has ended (logout, password change or removal)',
  token_revoked: 'The access token this stream was opened with has been revoked or regenerated',
  expired: 'The credential this stream was opened with has expired',
  user_deactivated: 'The user this stream was opened by has been deactivated or removed',
  client_deactivated: 'The client has been deactivated',
  credentials_regenerated: "The client's credentials this stream was opened with have been regenerated",
  access_changed: 'The credential no longer grants this stream (its role, scopes or client changed)',
};

/** The last frame of a stream whose credential was taken away: it says why, and the stream then ends. */
export const revokedFrame = (reason: RevocationReason): StreamFrame => ({
  event: 'revoked',
  data: { reason, detail: REVOKED_DETAIL[reason], revoked_at: new Date().toISOString() },
});

/**
 * Server-sent job events (docs/decisions.md §8): `connected` first, then the events missed since
 * Last-Event-ID (replayed from the Redis stream), then live events as the hub delivers them, and a
 * heartbeat every SSE_HEARTBEAT_MS. Live events that arrive during the replay are held back and
 * sent after it, without repeating what the replay already sent. A client holds at most
 * `maxStreamsPerClient` streams at once, across every API process (429 past it).
 *
 * A stream lasts no longer than its credential: whenever access is taken away anywhere (`credentialsChanged`,
 * the credential cache's invalidations, which reach every API process) the credential of every open stream is
 * asked again, and on each heartbeat its own; one that no longer holds ends its streams with `revoked`.
 */
export function createEventsService(deps: {
  redis: Redis;
  bus: EventBus;
  heartbeatMs: number;
  windowSeconds: number;
  maxStreamsPerClient: number;
  logger: Logger;
  /** Subscribes to "access may have been taken away" (on any process); returns the unsubscribe. */
  credentialsChanged?: (listener: () => void) => () => void;
}) {
  const hub = createEventHub(deps.redis);
  const leases = createStreamLeases(deps.redis, { max: deps.maxStreamsPerClient });
  /** The streams this process holds open (which a stop ends with a reconnect hint), with their credentials. */
  const open = new Map<StreamSink, CredentialCheck | undefined>();

  /** Ends the stream with `revoked` if its credential no longer holds. */
  function revokeIf(sink: StreamSink, reason: RevocationReason | null) {
    if (!reason || !open.has(sink) || sink.closed) return;
    open.delete(sink);
    sink.send(revokedFrame(reason));
    sink.end();
  }

  /**
   * Asks every open stream's credential again, once per credential whatever the number of its streams. A change
   * arriving while a round runs starts one more round after it, so none is missed and rounds do not pile up.
   */
  let round: Promise<void> | null = null;
  let again = false;
  function recheckAll(): void {
    if (round) {
      again = true;
      return;
    }
    const byCredential = new Map<string, { check: CredentialCheck; sinks: StreamSink[] }>();
    for (const [sink, check] of open) {
      if (!check) continue;
      const entry = byCredential.get(check.key) ?? { check, sinks: [] };
      entry.sinks.push(sink);
      byCredential.set(check.key, entry);
    }
    round = Promise.all(
      [...byCredential.values()].map(({ check, sinks }) =>
        check.recheck().then(
          (reason) => sinks.forEach((sink) => revokeIf(sink, reason)),
          (err) => deps.logger.warn({ err }, 'event stream credential could not be checked again'),
        ),
      ),
    ).then(() => {
      round = null;
      if (again) {
        again = false;
        recheckAll();
      }
    });
  }
  const unsubscribeChanges = deps.credentialsChanged?.(recheckAll);

  /** Streams the events of `scope` (null: every client's) into `sink` until it closes or its credential ends. */
  async function stream(
    scope: string | null,
    lastEventId: string | undefined,
    sink: StreamSink,
    credential?: CredentialCheck,
  ) {
    const lease = await leases.take(scope);
    // A caller that left while the lease was being taken will not close this stream: give the lease back now.
    if (!sink.open()) return lease.release();
    let lastSent = '0-0';
    let held: JobEvent[] | null = [];
    const send = (e: JobEvent) => {
      if (compareIds(e.id, lastSent) <= 0) return;
      lastSent = e.id;
      sink.send({ event: e.event, data: e.data, id: e.id });
    };
    let heartbeat: NodeJS.Timeout | undefined;
    let unsubscribe: (() => void) | null = null;
    const cleanup = () => {
      open.delete(sink);
      clearInterval(heartbeat);
      unsubscribe?.();
      lease.release();
    };
    open.set(sink, credential);
    sink.onClose(cleanup);
    try {
      // `connected` carries the stream position the client starts from, so even a client that got no
      // job event yet reconnects with a Last-Event-ID and misses nothing.
      lastSent = lastEventId && isStreamId(lastEventId) ? lastEventId : await deps.bus.latestId(scope);
      const connected = { client_id: scope, connected_at: new Date().toISOString() };
      sink.send({ event: 'connected', data: connected, id: lastSent, retryMs: 3000 });
      heartbeat = setInterval(() => {
        sink.send({ event: 'heartbeat', data: { at: new Date().toISOString() } });
        // Also what no invalidation announces (an expiry); a cached credential answers without a lookup.
        credential?.recheck().then(
          (reason) => revokeIf(sink, reason),
          () => undefined,
        );
      }, deps.heartbeatMs);
      unsubscribe = await hub.subscribe(scope, (e) => (held ? held.push(e) : send(e)));
      if (sink.closed) return cleanup();
      // What was published since that position (also between reading it and subscribing) comes first.
      for (const e of await deps.bus.replay(scope, lastSent)) send(e);
      for (const e of held) send(e);
      held = null;
    } catch (err) {
      deps.logger.warn({ err }, 'event stream could not subscribe');
      cleanup();
      sink.end();
    }
  }

  async function status(scope: string | null): Promise<JsonAnswer<'getEventStatus', 200>> {
    let ok = true;
    let active = hub.localCount();
    try {
      await deps.redis.ping();
      active = await hub.count(scope);
    } catch {
      ok = false;
    }
    return {
      status: ok ? 'ok' : 'degraded',
      active_subscriptions: active,
      heartbeat_interval_seconds: Math.max(1, Math.round(deps.heartbeatMs / 1000)),
      replay_window_seconds: deps.windowSeconds,
      checked_at: new Date().toISOString(),
    };
  }

  /**
   * Ends every open stream with a `retry:` hint and a closing comment (a stopping process), so callers reconnect
   * with their Last-Event-ID to another process and miss nothing.
   */
  function endStreams(retryMs = RECONNECT_AFTER_STOP_MS) {
    for (const sink of [...open.keys()]) sink.goodbye(retryMs);
  }

  async function close() {
    unsubscribeChanges?.();
    await hub.close();
  }

  return { stream, status, endStreams, close };
}

export type EventsService = ReturnType<typeof createEventsService>;

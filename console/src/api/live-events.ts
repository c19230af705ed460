import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { selectedClient } from './client';

/**
 * The console's one event stream: GET /api/v1/events/stream with the session cookie (no credential in its URL),
 * read with fetch and eventsource-parser rather than the browser's EventSource, so that every reconnection sends
 * Last-Event-ID and the API replays what was missed: after a network drop, after the browser was offline, and
 * after the stream was refused for a while (503, 429), where EventSource would give up or start over.
 * A stream that has said nothing for longer than two heartbeats (30 s each) is taken for dead and reopened.
 */
export type LiveEventType = 'job.queued' | 'job.started' | 'job.completed' | 'job.failed' | 'watch.new_leads';
export const LIVE_EVENT_TYPES: readonly LiveEventType[] = [
  'job.queued',
  'job.started',
  'job.completed',
  'job.failed',
  'watch.new_leads',
];

export interface LiveEvent {
  type: LiveEventType;
  id: string;
  data: Record<string, unknown>;
}

export type LiveState = 'connecting' | 'live' | 'offline' | 'ended';
type Listener = (event: LiveEvent) => void;

const STREAM_URL = '/api/v1/events/stream';
const SILENCE_LIMIT_MS = 65_000;
const listeners = new Set<Listener>();
const stateListeners = new Set<(state: LiveState) => void>();
const resyncListeners = new Set<() => void>();

let state: LiveState = 'connecting';
let lastEventId: string | null = null;
let running: AbortController | null = null;
let users = 0;
let failures = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let silenceTimer: ReturnType<typeof setTimeout> | undefined;

function setState(next: LiveState) {
  if (next === state) return;
  state = next;
  stateListeners.forEach((l) => l(next));
}

function dispatch(message: EventSourceMessage) {
  if (message.id) lastEventId = message.id;
  const type = message.event as LiveEventType | 'connected' | 'heartbeat' | 'revoked' | undefined;
  if (type === 'connected') {
    failures = 0;
    setState('live');
    return;
  }
  if (type === 'revoked') {
    // The credential no longer holds (logout, deactivation): the next API call answers 401 and signs the user out.
    stop('ended');
    return;
  }
  if (!type || !LIVE_EVENT_TYPES.includes(type as LiveEventType)) return;
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(message.data);
  } catch {
    // a frame that is not JSON carries nothing to show
  }
  const event: LiveEvent = { type: type as LiveEventType, id: message.id ?? '', data };
  listeners.forEach((l) => l(event));
}

function armSilenceTimer() {
  clearTimeout(silenceTimer);
  silenceTimer = setTimeout(() => reconnect(), SILENCE_LIMIT_MS);
}

async function run(controller: AbortController) {
  const parser = createParser({ onEvent: dispatch });
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  // A super_admin's stream carries the client it acts for, as every other call does (all clients' events without).
  const client = selectedClient();
  if (client) headers['x-selected-client-id'] = client;
  const response = await fetch(STREAM_URL, { headers, credentials: 'same-origin', signal: controller.signal });
  if (!response.ok || !response.body) {
    const retryAfter = Number(response.headers.get('retry-after'));
    throw Object.assign(new Error(`stream answered ${response.status}`), {
      status: response.status,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
    });
  }
  armSilenceTimer();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    armSilenceTimer();
    parser.feed(value);
  }
}

function open() {
  clearTimeout(retryTimer);
  const controller = new AbortController();
  running = controller;
  if (state !== 'live') setState(failures ? 'offline' : 'connecting');
  // A reconnection with no event id to resume from (none had arrived yet): what happened meanwhile is unknown.
  if (failures > 0 && lastEventId === null) queueMicrotask(() => resyncListeners.forEach((l) => l()));
  run(controller).then(
    () => controller === running && retryLater(),
    (error: { status?: number; retryAfterMs?: number }) => {
      if (controller !== running) return; // aborted on purpose
      if (error.status === 401) return stop('ended');
      retryLater(error.retryAfterMs);
    },
  );
}

function retryLater(afterMs?: number) {
  clearTimeout(silenceTimer);
  failures += 1;
  setState('offline');
  running = null;
  const backoff = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
  retryTimer = setTimeout(open, afterMs ?? backoff);
}

function reconnect() {
  running?.abort();
  running = null;
  retryLater(0);
}

function stop(final: LiveState) {
  clearTimeout(retryTimer);
  clearTimeout(silenceTimer);
  running?.abort();
  running = null;
  setState(final);
}

const wentOffline = () => {
  running?.abort();
  running = null;
  clearTimeout(retryTimer);
  clearTimeout(silenceTimer);
  failures += 1;
  setState('offline');
};
const cameOnline = () => {
  if (users > 0 && !running) open();
};

/** The client acted for changed: the stream starts over for it (the other client's event ids mean nothing here). */
export function restartLiveEvents(): void {
  if (users === 0) return;
  running?.abort();
  running = null;
  lastEventId = null;
  failures = 0;
  setState('connecting');
  open();
}

/** Opens the stream (once, however many components ask) while someone is signed in; the returned function lets go. */
export function connectLiveEvents(): () => void {
  users += 1;
  if (users === 1) {
    window.addEventListener('offline', wentOffline);
    window.addEventListener('online', cameOnline);
    if (navigator.onLine) open();
    else wentOffline();
  }
  return () => {
    users -= 1;
    if (users > 0) return;
    window.removeEventListener('offline', wentOffline);
    window.removeEventListener('online', cameOnline);
    stop('connecting');
    lastEventId = null;
    failures = 0;
  };
}

export function onLiveEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function onLiveState(listener: (state: LiveState) => void): () => void {
  stateListeners.add(listener);
  listener(state);
  return () => stateListeners.delete(listener);
}

/** Called when the stream was reopened with nothing to resume from: what it carried meanwhile is unknown. */
export function onResync(listener: () => void): () => void {
  resyncListeners.add(listener);
  return () => resyncListeners.delete(listener);
}

/** The id of the last event received (what a reconnection sends as Last-Event-ID); for tests and diagnostics. */
export const lastLiveEventId = () => lastEventId;

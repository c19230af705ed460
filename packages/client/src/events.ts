import { EventSource } from 'eventsource';
import { LeadServiceError } from './errors';
import type { components } from './generated/openapi';
import { sleep } from './sleep';

/** One frame of the event stream, typed from the contract (openapi.yaml's EventStreamFrame, its data parsed). */
export type StreamFrame = components['schemas']['EventStreamFrame'];
export type StreamEventName = StreamFrame['event'];
export type JobEventFrame = components['schemas']['JobEventFrame'];

/** Every frame name the contract declares; EventSource delivers a named event only to a listener for that name. */
export const STREAM_EVENTS = [
  'connected',
  'heartbeat',
  'job.queued',
  'job.started',
  'job.completed',
  'job.failed',
  'watch.new_leads',
  'revoked',
] as const satisfies readonly StreamEventName[];
// A frame the contract adds fails this line until it is listed above.
const EVERY_EVENT_LISTED: Exclude<StreamEventName, (typeof STREAM_EVENTS)[number]> extends never ? true : never = true;
void EVERY_EVENT_LISTED;

export type WatchEventFrame = components['schemas']['WatchEventFrame'];

export const isJobEvent = (frame: StreamFrame): frame is JobEventFrame => frame.event.startsWith('job.');
/** A watch's run saw new leads: their count and the first refs (`watch.new_leads`). */
export const isWatchEvent = (frame: StreamFrame): frame is WatchEventFrame => frame.event === 'watch.new_leads';

/** Answers that another attempt will not change: the stream ends with the error instead of reconnecting. */
const FINAL_STATUSES = [400, 401, 403, 404, 422];

export interface EventsOptions {
  /** Resume after this event (its id), as a reconnecting client does. */
  lastEventId?: string;
  /** A super_admin's choice of client (X-Selected-Client-Id); without it, a super_admin streams every client. */
  selectedClientId?: string;
  /** Wait before opening the stream again after the service refused it (429, 503) or it could not be reached. */
  reopenDelayMs?: number;
  signal?: AbortSignal;
}

interface StreamConnection {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
}

/**
 * The event stream as an async iterator of typed frames: `connected`, `heartbeat` and the job events. A dropped
 * connection is resumed by EventSource itself with Last-Event-ID (after the server's `retry`); when the service
 * refuses a reconnection (a 503 while it restarts, a 429 at the stream limit) the stream is opened again here,
 * after `reopenDelayMs`, from the last id received, so no event is missed or repeated. Ending the iteration (break,
 * return or the signal) closes the connection; a refusal that another attempt cannot change (401, 403, 422) ends
 * it with a LeadServiceError; a `revoked` frame (the credential was taken away) is the last one it yields.
 */
export function openEvents(
  connection: StreamConnection,
  options: EventsOptions = {},
): AsyncIterableIterator<StreamFrame> {
  const url = new URL('/api/v1/events/stream', connection.baseUrl);
  const fetchImpl = connection.fetch ?? fetch;
  const frames: StreamFrame[] = [];
  const waiting: { resolve: (r: IteratorResult<StreamFrame>) => void; reject: (e: unknown) => void }[] = [];
  let failure: unknown;
  let done = false;
  let lastEventId = options.lastEventId;
  let source: EventSource | undefined;
  /** The last answer that refused the stream, read for its {detail} and Retry-After. */
  let refusal: LeadServiceError | undefined;

  const settle = () => {
    while (waiting.length && (frames.length || failure || done)) {
      const waiter = waiting.shift()!;
      if (frames.length) waiter.resolve({ value: frames.shift()!, done: false });
      else if (failure) waiter.reject(failure);
      else waiter.resolve({ value: undefined, done: true });
    }
  };
  const close = () => {
    done = true;
    source?.close();
    options.signal?.removeEventListener('abort', close);
    settle();
  };

  const open = () => {
    const opened = new EventSource(url, {
      fetch: async (input, init) => {
        const headers: Record<string, string> = { ...init.headers };
        if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
        if (options.selectedClientId) headers['X-Selected-Client-Id'] = options.selectedClientId;
        // EventSource sends the id it saw last; a stream opened again here starts from the one this iterator saw.
        if (!headers['Last-Event-ID'] && lastEventId) headers['Last-Event-ID'] = lastEventId;
        const response = await fetchImpl(input, { ...init, headers });
        if (!response.ok) {
          const body = await response
            .clone()
            .json()
            .catch(() => null);
          refusal = new LeadServiceError(response.status, body, response.headers);
        }
        return response;
      },
    });
    for (const name of STREAM_EVENTS)
      opened.addEventListener(name, (message) => {
        if (message.lastEventId) lastEventId = message.lastEventId;
        const frame = { event: name, data: JSON.parse(message.data), id: message.lastEventId || undefined };
        frames.push(frame as StreamFrame);
        // The credential was taken away: the iteration ends after this frame instead of reconnecting with it.
        if (name === 'revoked') close();
        else settle();
      });
    opened.addEventListener('error', (error) => {
      if (done || opened.readyState !== EventSource.CLOSED) return; // EventSource reconnects by itself
      const refused = refusal?.status === error.code ? refusal : undefined;
      refusal = undefined;
      if (error.code && FINAL_STATUSES.includes(error.code)) {
        failure = refused ?? new LeadServiceError(error.code, { detail: error.message ?? '' });
        return close();
      }
      const delayMs = refused?.retryAfterSeconds ? refused.retryAfterSeconds * 1000 : (options.reopenDelayMs ?? 1000);
      void sleep(delayMs, options.signal).then(
        () => done || (source = open()),
        () => undefined,
      );
    });
    return opened;
  };

  if (options.signal?.aborted) done = true;
  else {
    options.signal?.addEventListener('abort', close, { once: true });
    source = open();
  }

  return {
    next: () => new Promise((resolve, reject) => (waiting.push({ resolve, reject }), settle())),
    return: async () => (close(), { value: undefined, done: true }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

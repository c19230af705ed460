import createClient, { type Client } from 'openapi-fetch';
import { requestAccess, type AccessRequestBody, type RequestAccessOptions } from './access';
import { openEvents, type EventsOptions } from './events';
import type { paths } from './generated/openapi';
import type { JsonMedia } from './errors';
import { jobState, waitForJob, type JobKind, type WaitForJobOptions } from './jobs';
import {
  flagResources,
  syncResources,
  type FlagChange,
  type ResourceType,
  type SyncResourcesOptions,
} from './resources';
import { answerTimeout, asUnreachable } from './network-errors';
import { idempotencyKeys, retryingFetch, type RetryOptions } from './retries';
import { watchesOf } from './watches';

export interface LeadServiceClientOptions {
  /** The service's origin, e.g. http://127.0.0.1:8080 (the contract's paths start with /api/v1). */
  baseUrl: string;
  /** A credential the bearer header accepts: an agent token (lpat_), a session (lss_) or a credential triple. */
  token?: string;
  /** A super_admin's choice of client (X-Selected-Client-Id) for every call. */
  selectedClientId?: string;
  fetch?: typeof fetch;
  /**
   * Retries of calls that are safe to repeat, after a network error or while a keyed request is in flight (see
   * retryingFetch); `{ retries: 0 }` turns them off.
   */
  retry?: RetryOptions;
  /**
   * The longest wait for an answer (its status and headers) to each attempt of a call, in milliseconds; the body may
   * take longer. Default: none of the client's own (Node's fetch gives up connecting after 10 s, waiting for
   * headers after 300 s).
   */
  timeoutMs?: number;
}

export type LeadServiceClient = ReturnType<typeof createLeadServiceClient>;

/** fetch that gives up when an answer's headers take longer than `ms` (a TimeoutError); the body is not bounded. */
function withAnswerTimeout(send: (request: Request) => Promise<Response>, ms: number) {
  return async (request: Request) => {
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(answerTimeout(ms)), ms);
    try {
      return await send(new Request(request, { signal: AbortSignal.any([request.signal, timer.signal]) }));
    } finally {
      clearTimeout(timeout);
    }
  };
}

/**
 * The typed client: `api` calls any operation of openapi.yaml through openapi-fetch (wrap a call in `unwrap()` for
 * its data or a LeadServiceError), plus what HTTP alone makes awkward: the event stream, waiting for a job or a
 * watch's run, the agent's access request, a resource sync followed to its end and flag changes of many resources.
 * A call of an operation that takes an Idempotency-Key carries a new one, and a call that is safe to repeat is
 * retried after a network error with the same key, so a lost answer never does the work twice.
 */
export function createLeadServiceClient(options: LeadServiceClientOptions) {
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.selectedClientId) headers['X-Selected-Client-Id'] = options.selectedClientId;
  const customFetch = options.fetch;
  const base = customFetch ?? ((request: Request) => fetch(request));
  const attempt = options.timeoutMs ? withAnswerTimeout(base, options.timeoutMs) : base;
  const retrying = retryingFetch((request) => attempt(request), options.retry);
  // What gives no answer is told as its cause (refused, DNS, TLS, timeout), not fetch's bare "fetch failed".
  const send = (request: Request) =>
    retrying(request).catch((err: unknown) => Promise.reject(asUnreachable(err, options.baseUrl)));
  const api: Client<paths, JsonMedia> = createClient<paths, JsonMedia>({
    baseUrl: options.baseUrl.replace(/(?<!\/)\/+$/, ''),
    headers,
    fetch: (request: Request) => send(request),
  });
  api.use(idempotencyKeys);
  const events = (eventsOptions: EventsOptions = {}) =>
    openEvents(
      { baseUrl: options.baseUrl, token: options.token, fetch: options.fetch },
      { selectedClientId: options.selectedClientId, ...eventsOptions },
    );
  return {
    api,
    events,
    /** A job's status, whichever its kind (maps-scrape or research). */
    jobState: (jobId: string, kind?: JobKind) => jobState(api, jobId, kind),
    waitForJob: (jobId: string, waitOptions?: WaitForJobOptions) => waitForJob(api, events, jobId, waitOptions),
    requestAccess: (body: AccessRequestBody, accessOptions?: RequestAccessOptions) =>
      requestAccess(api, body, accessOptions),
    /** Pages of one resource type to the end of its list or sync (keep each page's next_cursor). */
    syncResources: (type: ResourceType, syncOptions?: SyncResourcesOptions) => syncResources(api, type, syncOptions),
    /** A flag change of many resources by ref (100 per call), with per-ref results and errors. */
    flagResources: (refs: string[], change: FlagChange) => flagResources(api, refs, change),
    /** Watches, jobs run on a cadence: create, list, get, update, pause, resume, trigger, remove, runs, waitForRun. */
    watches: watchesOf(api),
  };
}

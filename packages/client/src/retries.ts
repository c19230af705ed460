import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENT_OPERATIONS } from './generated/idempotent-operations';
import { sleep } from './sleep';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A new key: a random UUID as the RFC 8941 String the draft asks for (`"…"`). */
export const newIdempotencyKey = (): string => `"${globalThis.crypto.randomUUID()}"`;

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0: none). */
  retries?: number;
  /** The first wait (default 250 ms), doubled at each retry with up to half of it added at random. */
  initialDelayMs?: number;
  /** The longest wait, Retry-After included (default 8000 ms). */
  maxDelayMs?: number;
}

/** RFC 9110's idempotent methods: repeating one does what doing it once does. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * No answer at all (refused, reset, dropped): fetch rejects with a TypeError (read by name, since a fetch of another
 * realm has its own TypeError); an abort (AbortError, TimeoutError) is the caller's own doing.
 */
const isNetworkError = (err: unknown) => (err as Error | null)?.name === 'TypeError';

async function inFlight(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return body?.code === 'idempotency_key_in_flight';
}

/**
 * fetch that retries what is safe to repeat: a request with an idempotent method or an Idempotency-Key, after a
 * network error (the answer never came: the service may have done the work, and the key makes the retry answer
 * what it answered), and one answered 409 `idempotency_key_in_flight` (the first attempt is still running), waiting
 * its Retry-After. The retry is the same request, its Idempotency-Key included. Bounded, with backoff and jitter.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response> = (request) => fetch(request),
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const initial = options.initialDelayMs ?? 250;
  const max = options.maxDelayMs ?? 8000;
  const backoff = (attempt: number) => {
    const base = initial * 2 ** attempt;
    return Math.min(max, base + Math.random() * base * 0.5);
  };
  return async (request) => {
    if (!IDEMPOTENT_METHODS.has(request.method) && !request.headers.has(IDEMPOTENCY_HEADER)) return fetchImpl(request);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(request.clone());
      } catch (err) {
        if (attempt >= retries || request.signal.aborted || !isNetworkError(err)) throw err;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (attempt >= retries || !(await inFlight(response))) return response;
      const retryAfter = Number(response.headers.get('retry-after')) * 1000;
      await sleep(Math.min(max, Math.max(backoff(attempt), Number.isFinite(retryAfter) ? retryAfter : 0)));
    }
  };
}

/**
 * openapi-fetch middleware: every call of an operation whose contract declares Idempotency-Key gets a new key
 * (unless the caller set one), which retryingFetch then keeps for its retries.
 */
export const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.headers.has(IDEMPOTENCY_HEADER) || !IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`))
      return undefined;
    request.headers.set(IDEMPOTENCY_HEADER, newIdempotencyKey());
    return request;
  },
};

import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@contract';
import { ApiError } from './errors';

export type { paths, components, operations } from '@contract';

/**
 * The console's one way to the API: openapi-fetch typed by the contract's paths (packages/client's generated
 * types), so an undeclared operation, parameter or field is a type error. The session travels as the httpOnly
 * cookie the browser holds for this origin; the console never sees, stores or sends a token itself.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** The client a super_admin acts for (X-Selected-Client-Id); kept in this tab's memory and its URL, never a token. */
let selectedClientId: string | null = null;
export const setSelectedClient = (id: string | null) => {
  selectedClientId = id;
};
export const selectedClient = () => selectedClientId;

const listeners = new Set<(error: ApiError | null) => void>();
/**
 * Hears every call's outcome: an ApiError when it failed (the session expiring, 401, sends the user to sign in; an
 * outage shows a banner), null when it succeeded (the banner goes).
 */
export function onApiOutcome(listener: (error: ApiError | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const selectedClientHeader: Middleware = {
  onRequest({ request }) {
    if (selectedClientId && !request.headers.has('x-selected-client-id'))
      request.headers.set('x-selected-client-id', selectedClientId);
    return request;
  },
};
api.use(selectedClientHeader);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a call that succeeded, else an ApiError in words (the contract's `{detail}`, its `code`, when to
 * retry). Every listener hears the error first.
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (cause) {
    const error = ApiError.unreachable(cause);
    listeners.forEach((l) => l(error));
    throw error;
  }
  if (answer.response.ok) {
    listeners.forEach((l) => l(null));
    return answer.data as T;
  }
  const error = ApiError.from(answer.response, answer.error);
  listeners.forEach((l) => l(error));
  throw error;
}

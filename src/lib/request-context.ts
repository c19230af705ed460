import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-request context, so every log line written while serving a request carries its request id. */
export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

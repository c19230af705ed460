import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a log line and a span are about: the HTTP request being served, or the activity being run, with the
 * id of the request that started its workflow (carried through Temporal headers) where there was one.
 */
export interface RequestContext {
  requestId?: string;
  workflowId?: string;
  runId?: string;
  activityType?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** The context's fields as log fields (request_id, workflow_id, run_id, activity_type), the unset ones left out. */
export function contextLogFields(): Record<string, string> {
  const store = requestContext.getStore();
  if (!store) return {};
  const fields: Record<string, string> = {};
  if (store.requestId) fields.request_id = store.requestId;
  if (store.workflowId) fields.workflow_id = store.workflowId;
  if (store.runId) fields.run_id = store.runId;
  if (store.activityType) fields.activity_type = store.activityType;
  return fields;
}

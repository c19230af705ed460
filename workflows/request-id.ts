import { trace } from '@opentelemetry/api';
import { defaultPayloadConverter, type Headers, type WorkflowInterceptors } from '@temporalio/workflow';

/** The Temporal header that carries the id of the HTTP request a workflow was started for (src/lib/request-context). */
export const REQUEST_ID_HEADER = 'lead-request-id';
/** The span attribute that names it, as the API and the activities set it (src/lib/tracing.ts). */
const REQUEST_ID_ATTRIBUTE = 'request.id';

/** The request id a set of headers carries, if any. */
export function requestIdOf(headers: Headers): string | undefined {
  const payload = headers[REQUEST_ID_HEADER];
  if (!payload) return undefined;
  const value: unknown = defaultPayloadConverter.fromPayload(payload);
  return typeof value === 'string' ? value : undefined;
}

/** `headers` with the request id added (unchanged without one). */
export function withRequestId(headers: Headers, requestId: string | undefined): Headers {
  return requestId ? { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) } : headers;
}

/**
 * Carries the request id a workflow was started with to what it starts: activities (whose log lines and spans
 * then name it), child workflows and its next run; tags the workflow's spans with it and adds it to the workflow's
 * log lines. The id is read from the start's headers, which every replay gets again, so it stays deterministic.
 * They run inside the OpenTelemetry interceptors (workflows/interceptors.ts), whose span is then the active one.
 */
export function requestIdInterceptors(): WorkflowInterceptors {
  let requestId: string | undefined;
  const tagSpan = () => void (requestId && trace.getActiveSpan()?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId));
  return {
    inbound: [
      {
        execute(input, next) {
          requestId = requestIdOf(input.headers);
          tagSpan();
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          tagSpan();
          return next({ ...input, headers: withRequestId(input.headers, requestId) });
        },
        scheduleLocalActivity(input, next) {
          tagSpan();
          return next({ ...input, headers: withRequestId(input.headers, requestId) });
        },
        startChildWorkflowExecution(input, next) {
          tagSpan();
          return next({ ...input, headers: withRequestId(input.headers, requestId) });
        },
        continueAsNew(input, next) {
          return next({ ...input, headers: withRequestId(input.headers, requestId) });
        },
        signalWorkflow(input, next) {
          return next({ ...input, headers: withRequestId(input.headers, requestId) });
        },
        getLogAttributes(input, next) {
          return next(requestId ? { request_id: requestId, ...input } : input);
        },
      },
    ],
  };
}

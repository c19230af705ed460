// The workflow interceptors bundled with the workflows (src/worker/create-worker.ts, bundleWorkflows): not a workflow.
import {
  defaultPayloadConverter,
  workflowInfo,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { interceptors as openTelemetry } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { requestIdInterceptors } from './request-id';

/** The header the client's OpenTelemetry interceptor puts the trace context in, when the starting process traces. */
const TRACE_HEADER = '_tracer-data';

/**
 * A child workflow carries its parent's search attributes (workflows/search-attributes.ts) unless it names its own,
 * so a job's webhook and index runs, an access request's mails and a reservation's callback are found with it.
 * Search attributes are not compared on replay: runs started before this replay the same.
 */
const inheritSearchAttributes: WorkflowOutboundCallsInterceptor = {
  startChildWorkflowExecution(input, next) {
    const inherited = workflowInfo().typedSearchAttributes;
    if (input.options.typedSearchAttributes || inherited.getAll().length === 0) return next(input);
    return next({ ...input, options: { ...input.options, typedSearchAttributes: inherited } });
  },
};

/**
 * `interceptor`'s methods, called only once `traced()` says the run was started with a trace context; otherwise
 * each passes straight on, so a service without tracing spends nothing on spans inside its workflows. The answer
 * comes from the start's headers, which every replay reads again: deterministic, and spans are no commands.
 */
function whenTraced<T extends object>(interceptor: T, traced: () => boolean): T {
  const gated: Record<string, unknown> = {};
  const methods = interceptor as Record<string, (input: unknown, next: (input: unknown) => unknown) => unknown>;
  let proto: object | null = interceptor;
  while (proto && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || typeof methods[name] !== 'function' || name in gated) continue;
      gated[name] = (input: unknown, next: (input: unknown) => unknown) =>
        traced() ? methods[name].call(interceptor, input, next) : next(input);
    }
    proto = Object.getPrototypeOf(proto);
  }
  return gated as T;
}

/**
 * OpenTelemetry's (a span for the run, for each activity and child it starts, the trace context passed on in
 * headers), for runs started by a traced process, and inside them the request id's and the search attributes'.
 * None adds a command: a running workflow replays the same.
 */
export const interceptors = (): WorkflowInterceptors => {
  const otel = openTelemetry();
  const requestId = requestIdInterceptors();
  let traced = false;
  const noticeTrace: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      const carried = input.headers[TRACE_HEADER];
      traced = carried !== undefined && 'traceparent' in (defaultPayloadConverter.fromPayload(carried) as object);
      return next(input);
    },
  };
  const isTraced = () => traced;
  return {
    inbound: [noticeTrace, ...(otel.inbound ?? []).map((i) => whenTraced(i, isTraced)), ...(requestId.inbound ?? [])],
    outbound: [
      ...(otel.outbound ?? []).map((i) => whenTraced(i, isTraced)),
      ...(requestId.outbound ?? []),
      inheritSearchAttributes,
    ],
    internals: otel.internals ?? [],
  };
};

// The workflow interceptors bundled with the workflows (src/worker/create-worker.ts, bundleWorkflows): not a workflow.
import { workflowInfo, type WorkflowInterceptors, type WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';
import { interceptors as openTelemetry } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { requestIdInterceptors } from './request-id';

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
 * OpenTelemetry's (a span for the run, for each activity and child it starts, the trace context passed on in
 * headers) and, inside them, the request id's and the search attributes'. None adds a command: a running workflow
 * replays the same (OpenTelemetry's extra yields of old SDK versions are gated by SDK flags on what a history
 * recorded).
 */
export const interceptors = (): WorkflowInterceptors => {
  const otel = openTelemetry();
  const requestId = requestIdInterceptors();
  return {
    inbound: [...(otel.inbound ?? []), ...(requestId.inbound ?? [])],
    outbound: [...(otel.outbound ?? []), ...(requestId.outbound ?? []), inheritSearchAttributes],
    internals: otel.internals ?? [],
  };
};

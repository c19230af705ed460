// The workflow interceptors bundled with the workflows (src/worker/create-worker.ts, bundleWorkflows): not a workflow.
import type { WorkflowInterceptors } from '@temporalio/workflow';
import { interceptors as openTelemetry } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { requestIdInterceptors } from './request-id';

/**
 * OpenTelemetry's (a span for the run, for each activity and child it starts, the trace context passed on in
 * headers) and, inside them, the request id's. Neither adds a command: a running workflow replays the same
 * (OpenTelemetry's extra yields of old SDK versions are gated by SDK flags on what a history recorded).
 */
export const interceptors = (): WorkflowInterceptors => {
  const otel = openTelemetry();
  const requestId = requestIdInterceptors();
  return {
    inbound: [...(otel.inbound ?? []), ...(requestId.inbound ?? [])],
    outbound: [...(otel.outbound ?? []), ...(requestId.outbound ?? [])],
    internals: otel.internals ?? [],
  };
};

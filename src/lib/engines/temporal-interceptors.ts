import path from 'node:path';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { requestIdOf, withRequestId } from '../../../workflows/request-id';
import { currentRequestId, requestContext } from '../request-context';
import { currentTracing } from '../tracing';
import type { SearchAttributeGate } from './search-attributes';

/** The workflow interceptors module, bundled with the workflows (no extension: .ts from src/, .js from dist/). */
export const WORKFLOW_INTERCEPTORS_PATH = path.resolve(__dirname, '../../../workflows/interceptors');

/** Adds the id of the request being served to every workflow start, signal and Update it sends. */
const requestIdClientInterceptor: WorkflowClientInterceptor = {
  startWithDetails: (input, next) => next({ ...input, headers: withRequestId(input.headers, currentRequestId()) }),
  signal: (input, next) => next({ ...input, headers: withRequestId(input.headers, currentRequestId()) }),
  signalWithStart: (input, next) => next({ ...input, headers: withRequestId(input.headers, currentRequestId()) }),
  startUpdate: (input, next) => next({ ...input, headers: withRequestId(input.headers, currentRequestId()) }),
  startUpdateWithStart: (input, next) =>
    next({
      ...input,
      workflowStartHeaders: withRequestId(input.workflowStartHeaders, currentRequestId()),
      updateHeaders: withRequestId(input.updateHeaders, currentRequestId()),
    }),
};

/** Leaves the search attributes out of a start while the namespace is not known to have them (search-attributes.ts). */
const searchAttributesUnlessMissing = (gate: SearchAttributeGate): WorkflowClientInterceptor => {
  const gated = <T extends { typedSearchAttributes?: unknown; searchAttributes?: unknown }>(options: T): T =>
    gate.ready ? options : { ...options, typedSearchAttributes: undefined, searchAttributes: undefined };
  return {
    startWithDetails: (input, next) => next({ ...input, options: gated(input.options) }),
    signalWithStart: (input, next) => next({ ...input, options: gated(input.options) }),
    startUpdateWithStart: (input, next) => next({ ...input, workflowStartOptions: gated(input.workflowStartOptions) }),
  };
};

/**
 * The Temporal client's interceptors (the API's, and the one activities start workflows with): a span for each
 * call with the trace context passed in headers (OpenTelemetry), the request id, and the search attributes' gate.
 */
export const clientInterceptors = (gate: SearchAttributeGate): ClientInterceptors => ({
  workflow: [
    // Spans and trace headers only where this process traces (tracing starts before any client is made).
    ...(currentTracing() ? [new OpenTelemetryWorkflowClientInterceptor()] : []),
    requestIdClientInterceptor,
    searchAttributesUnlessMissing(gate),
  ],
});

/**
 * Runs an activity inside the context of the request its workflow was started for (its id from the headers) and
 * of its workflow, so every log line and span of the activity names them; outermost, so the activity's span
 * starts inside it.
 */
const requestContextInterceptor: ActivityInterceptorsFactory = (ctx: ActivityContext) => {
  const { info } = ctx;
  let requestId: string | undefined;
  return {
    inbound: {
      execute(input, next) {
        requestId = requestIdOf(input.headers);
        const store = {
          requestId,
          workflowId: info.workflowExecution?.workflowId,
          runId: info.workflowExecution?.runId,
          activityType: info.activityType,
        };
        return requestContext.run(store, () => next(input));
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next(requestId ? { request_id: requestId, ...input } : input),
    },
  };
};

/** The worker's activity interceptors: the request context, then (where this process traces) OpenTelemetry's span. */
export const activityInterceptors = (): ActivityInterceptorsFactory[] => [
  requestContextInterceptor,
  ...(currentTracing()
    ? [
        (ctx: ActivityContext) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ]
    : []),
];

/**
 * The sink the workflows' spans leave the sandbox through: into this process's tracing when it runs (looked up at
 * each export, so tracing started after the worker is used too), dropped otherwise.
 */
export function workflowSpanSinks(): InjectedSinks<{ exporter: { export(spans: unknown[]): void } }> {
  const sinks = new WeakMap<object, ReturnType<typeof makeWorkflowExporter>>();
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          const tracing = currentTracing();
          if (!tracing) return;
          let sink = sinks.get(tracing);
          if (!sink) sinks.set(tracing, (sink = makeWorkflowExporter(tracing.processor, tracing.resource)));
          sink.export.fn(info, spans as never);
        },
      },
    },
  };
}

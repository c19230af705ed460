import { trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * What every process needs of tracing, whether it is on or not: the request id attribute, the running tracing (if
 * any) and tagging the active span. Starting tracing (tracing-start.ts) loads the SDK and its instrumentations,
 * only where OTEL_EXPORTER_OTLP_ENDPOINT asks for it, so a process without tracing never loads them.
 */

/** The attribute every span of a request carries, in the API and in the worker's activities and workflows. */
export const REQUEST_ID_ATTRIBUTE = 'request.id';

export interface Tracing {
  /** Where finished spans go: workflow spans, which the worker's sink receives from the sandbox, join here too. */
  processor: SpanProcessor;
  resource: Resource;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/** This process's tracing, once started (the worker hands workflow spans to it). */
export const currentTracing = (): Tracing | undefined => active;

/** Records the process's tracing as it starts (undefined as it stops). */
export function setCurrentTracing(tracing: Tracing | undefined): void {
  active = tracing;
}

/** Marks the active span (the HTTP server span of a request being served) with the request's id. */
export function tagRequestSpan(requestId: string): void {
  trace.getActiveSpan()?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
}

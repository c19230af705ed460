import { context, propagation, trace, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { currentRequestId } from './request-context';
import { REQUEST_ID_ATTRIBUTE, currentTracing, setCurrentTracing, type Tracing } from './tracing';
import { redactingExporter } from './tracing-redaction';

/** Probes and scrapes are not traced: they would be most of the spans and tell nothing. */
const UNTRACED_PATHS = /^\/(?:healthz|readyz|metrics)(?:\?|$)/;

/** Gives every span started while a request or an activity is served the request's id. */
class RequestIdProcessor implements SpanProcessor {
  onStart(span: Span, _parent: Context): void {
    const requestId = currentRequestId();
    if (requestId) span.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush = () => Promise.resolve();
  shutdown = () => Promise.resolve();
}

/**
 * Starts tracing for this process: a tracer provider registered globally (W3C trace context and baggage, an
 * AsyncLocalStorage context), the HTTP (server and client), fetch, MongoDB and Redis instrumentations, and
 * spans handed to `exporter` with their secrets taken out (tracing-redaction.ts: query values redacted, no
 * credential header). Call it before the instrumented libraries are loaded (the entry points import
 * src/tracing-preload.ts first). `simple` exports each span as it ends (tests); otherwise in batches.
 */
export function startTracing(opts: { exporter: SpanExporter; serviceName?: string; simple?: boolean }): Tracing {
  if (currentTracing()) throw new Error('tracing is already started in this process');
  const resource = new Resource({ 'service.name': opts.serviceName ?? 'lead-service' });
  const exporter = redactingExporter(opts.exporter);
  const processor = opts.simple ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new RequestIdProcessor(), processor] });
  provider.register();
  const instrumentations: Instrumentation[] = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
    }),
    new UndiciInstrumentation({ ignoreRequestHook: (req) => UNTRACED_PATHS.test(req.path) }),
    // Statements with their values masked (the default), never the documents themselves.
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    // The command's name only: its arguments are keys and values (an event's data, a lock's token, AUTH's password).
    new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
  ];
  const unregister = registerInstrumentations({ tracerProvider: provider, instrumentations });
  // Patches the HTTP modules now, even where this process loaded them before (the instrumentation patches on require).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('node:http');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('node:https');
  const tracing: Tracing = {
    processor,
    resource,
    flush: () => provider.forceFlush(),
    async shutdown() {
      unregister();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      if (currentTracing() === tracing) setCurrentTracing(undefined);
    },
  };
  setCurrentTracing(tracing);
  return tracing;
}

/**
 * Tracing as the environment asks: spans exported by OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces`
 * appended, as the OpenTelemetry specification says of that variable) when it is set; off otherwise.
 */
export function startTracingFromEnv(env: NodeJS.ProcessEnv): Tracing | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  // An invalid value is reported by the configuration, which stops the process with the other problems.
  if (!endpoint || !URL.canParse(endpoint)) return undefined;
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` });
  return startTracing({ exporter, serviceName: env.OTEL_SERVICE_NAME || undefined });
}

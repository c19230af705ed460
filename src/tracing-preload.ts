// The entry points' first import: tracing starts before the libraries it instruments (http, MongoDB, Redis) load.
// Without OTEL_EXPORTER_OTLP_ENDPOINT the SDK and its instrumentations are never loaded.
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is asked for
  (require('./lib/tracing-start') as typeof import('./lib/tracing-start')).startTracingFromEnv(process.env);
}

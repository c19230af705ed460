import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './logger';

/**
 * The process's metrics in Prometheus's text format (docs/operations.md, "Metrics"). One registry per process:
 * the API and a worker in one process (`npm start`) share it. Label values are few and known (operation ids,
 * statuses, job types, providers, stream and cache names), never ids or paths.
 */
export const registry = new Registry();

/** A counter in this process's registry. */
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  new Counter({ name, help, labelNames, registers: [registry] });

export const httpRequestDuration = new Histogram({
  name: 'lead_http_request_duration_seconds',
  help: 'HTTP requests by contract operation and status: how long each took until its answer ended',
  labelNames: ['operation', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const httpRequestsInFlight = new Gauge({
  name: 'lead_http_requests_in_flight',
  help:
    'Requests holding a slot of the HTTP edge: admitted, answer not ended (open event streams and requests whose ' +
    'bodies are arriving not counted)',
  registers: [registry],
});

export const httpBodiesArriving = new Gauge({
  name: 'lead_http_request_bodies_arriving',
  help: 'Admitted requests whose bodies are still arriving (they hold no slot of the HTTP edge meanwhile)',
  registers: [registry],
});

export const httpRequestsShed = counter(
  'lead_http_requests_shed_total',
  'Requests refused with 503 before any work, by reason (concurrency, event_loop_delay, address_share and ' +
    'address_bodies at the HTTP edge, job_backlog at a job submit)',
  ['reason'],
);

export const httpRequestsTimedOut = counter(
  'lead_http_requests_timed_out_total',
  'Requests answered 408 because they did not arrive within a read deadline, by what was still arriving ' +
    '(headers: HTTP_HEADERS_TIMEOUT_MS; body: HTTP_REQUEST_TIMEOUT_MS)',
  ['phase'],
);

export const jobsUnfinished = new Gauge({
  name: 'lead_jobs_unfinished',
  help: 'Jobs of all tenants queued or running, as last counted for the backlog bound (at most every 2 s)',
  registers: [registry],
});

export const jobsSubmitted = counter('lead_jobs_submitted_total', 'Jobs accepted by the API, by type', ['type']);

export const jobsFinished = counter(
  'lead_jobs_finished_total',
  'Jobs that reached a final state, by type and outcome (completed, failed, cancelled)',
  ['type', 'outcome'],
);

export const relayCalls = counter(
  'lead_relay_calls_total',
  "Relayed provider calls, by provider and outcome (the provider's status class, unreachable, limited)",
  ['provider', 'outcome'],
);

export const relaySpend = counter(
  'lead_relay_spend_total',
  'Spend of relayed calls at the providers prices per call, by provider (the currency of the price list)',
  ['provider'],
);

export const cacheLookups = counter(
  'lead_cache_lookups_total',
  'Lookups of the per-process and Redis caches, by cache and result (hit, miss, bypass when Redis failed)',
  ['cache', 'result'],
);

export const idempotencyAnswersDropped = counter(
  'lead_idempotency_answers_dropped_total',
  'Idempotency-Key answers not kept for their full time, by reason: caller_cap (older answers of a caller past ' +
    'IDEMPOTENCY_MAX_ANSWERS_PER_CALLER or _BYTES_PER_CALLER), too_large (one answer larger than the bytes alone)',
  ['reason'],
);

export const drainedRecords = counter(
  'lead_stream_drain_records_total',
  'Records moved from a Redis stream into MongoDB by this process, by stream',
  ['stream'],
);

/** The streams this process drains, and how to read the oldest record still waiting in each. */
const drained = new Map<string, () => Promise<number | null>>();

/**
 * Registers a drained stream for the lag gauge until the returned function is called: `oldest` answers the
 * time (ms) of the oldest record not yet stored, or null when none waits.
 */
export function watchDrainLag(stream: string, oldest: () => Promise<number | null>): () => void {
  drained.set(stream, oldest);
  return () => void (drained.get(stream) === oldest && drained.delete(stream));
}

new Gauge({
  name: 'lead_stream_drain_lag_seconds',
  help: 'Age of the oldest record waiting in a drained Redis stream (0 when none waits), read at scrape time',
  labelNames: ['stream'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    await Promise.all(
      [...drained].map(async ([stream, oldest]) => {
        const at = await oldest().catch(() => undefined);
        if (at !== undefined) this.set({ stream }, at === null ? 0 : Math.max(0, (Date.now() - at) / 1000));
      }),
    );
  },
});

/** Where this process's Temporal runtime serves the SDK's own metrics (its Prometheus exporter), once installed. */
let temporalSdkMetrics: string | undefined;

/** Called once the Temporal runtime is installed with its Prometheus exporter on `bindAddress` (host:port). */
export function temporalMetricsAt(bindAddress: string): void {
  temporalSdkMetrics = `http://${bindAddress}/metrics`;
}

/** A loopback address with a free port, for the Temporal SDK's exporter (which needs a port before it binds). */
export async function freeLoopbackAddress(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `127.0.0.1:${port}`;
}

/** The whole scrape: this process's metrics, then the Temporal SDK's (worker slots, polls, task latencies). */
export async function metricsText(): Promise<string> {
  const own = await registry.metrics();
  if (!temporalSdkMetrics) return own;
  const sdk = await fetch(temporalSdkMetrics, { signal: AbortSignal.timeout(2000) })
    .then((res) => (res.ok ? res.text() : ''))
    .catch(() => '');
  return sdk ? `${own}\n${sdk}` : own;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

let defaultsCollected = false;

/**
 * `GET /metrics` on a port of its own (METRICS_PORT), apart from the API's: the reverse proxy forwards only
 * the API's port, so the figures are reachable from the service's network (Prometheus) and never publicly.
 */
export async function startMetricsServer(host: string, port: number, logger: Logger): Promise<MetricsServer> {
  if (!defaultsCollected) {
    collectDefaultMetrics({ register: registry, prefix: 'lead_' });
    defaultsCollected = true;
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metricsText().then(
      (text) => void res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err) => {
        logger.warn({ err: (err as Error).message }, 'metrics could not be collected');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info({ url: `${url}/metrics` }, 'metrics served');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The document engine's connection pool as its driver reports it (CMAP events), across all servers. */
const mongoPool = { waiting: 0, inUse: 0 };

new Gauge({
  name: 'lead_mongo_pool_connections',
  help: "The document engine's pool: connections in use, and operations waiting for one (state)",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.set({ state: 'in_use' }, mongoPool.inUse);
    this.set({ state: 'waiting' }, mongoPool.waiting);
  },
});

const mongoWaitTimeouts = counter(
  'lead_mongo_pool_wait_timeouts_total',
  "Operations refused because no connection of the document engine's pool freed within MONGO_WAIT_QUEUE_TIMEOUT_MS",
  [],
);

/** Follows a MongoClient's pool events into the gauges above (the driver emits them whether or not anyone listens). */
export function watchMongoPool(client: {
  on(event: string, listener: (e: { reason?: string }) => void): unknown;
}): void {
  client.on('connectionCheckOutStarted', () => (mongoPool.waiting += 1));
  client.on('connectionCheckedOut', () => {
    mongoPool.waiting -= 1;
    mongoPool.inUse += 1;
  });
  client.on('connectionCheckOutFailed', (e) => {
    mongoPool.waiting -= 1;
    if (e.reason === 'timeout') mongoWaitTimeouts.inc();
  });
  client.on('connectionCheckedIn', () => (mongoPool.inUse -= 1));
}

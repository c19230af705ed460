import path from 'node:path';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { PayloadCodec } from '@temporalio/common';
import type { TemporalConnection } from '../lib/engines/temporal';
import {
  WORKFLOW_INTERCEPTORS_PATH,
  activityInterceptors,
  workflowSpanSinks,
} from '../lib/engines/temporal-interceptors';
import type { Logger } from '../lib/logger';
import { temporalMetricsAt } from '../lib/metrics';

// No extension: the bundler finds index.ts from src/ and index.js from dist/.
export const WORKFLOWS_PATH = path.resolve(__dirname, '../../workflows');

export interface WorkerOptions {
  /** Where Temporal is, with TLS and an API key for a real cluster (the API's client uses the same). */
  connection: TemporalConnection;
  namespace: string;
  /** The task queues it polls, each with how much one process takes on at once (the rest waits, durably). */
  queues: WorkerQueue[];
  /** Every activity the workflows call, from the process's area modules. */
  activities: object;
  logger: Logger;
  /** A prebuilt workflow bundle (tests build it once for the whole run); otherwise it is bundled here. */
  workflowBundle?: WorkflowBundleWithSourceMap | { codePath: string };
  /** Encrypts workflow payloads, as the API's client does. */
  payloadCodec: PayloadCodec;
}

export interface WorkerQueue {
  taskQueue: string;
  concurrency: { activities: number; workflowTasks: number };
}

export interface RunningWorker {
  /** One per task queue polled. */
  workers: Worker[];
  shutdown(): Promise<void>;
}

/** How long a stopping worker lets running activities finish before it hands them back (docker's grace is longer). */
export const WORKER_SHUTDOWN_FORCE_MS = 30_000;

export function bundleWorkflows() {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    // Bundled with the workflows: a prebuilt bundle (tests, WORKFLOW_BUNDLE_PATH) carries them too.
    workflowInterceptorModules: [WORKFLOW_INTERCEPTORS_PATH],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never,
  });
}

/**
 * Routes the Temporal SDK's own logs into pino, and with `metricsBindAddress` (host:port) serves the SDK's worker
 * metrics there through its Prometheus exporter, which /metrics passes on (src/lib/metrics.ts). Called once by a
 * process entry point, before any worker: the runtime can be installed only once per process.
 */
export function installTemporalLogger(logger: Logger, opts: { metricsBindAddress?: string } = {}): void {
  const levels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;
  const bindAddress = opts.metricsBindAddress;
  Runtime.install({
    logger: new DefaultLogger('INFO', (e) => logger[levels[e.level]]({ ...e.meta }, e.message)),
    ...(bindAddress
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress, countersTotalSuffix: true } } } }
      : {}),
  });
  if (bindAddress) temporalMetricsAt(bindAddress);
}

/**
 * The one way a worker is built: by `npm run worker`, inside `npm start`, and in tests. One Temporal worker per task
 * queue on one connection, so each queue's concurrency is its own (bulk jobs never take the slots of messages).
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const connection = await NativeConnection.connect(opts.connection);
  const workflowBundle = opts.workflowBundle ?? (await bundleWorkflows());
  const workers: Worker[] = [];
  try {
    for (const queue of opts.queues) {
      workers.push(
        await Worker.create({
          connection,
          namespace: opts.namespace,
          taskQueue: queue.taskQueue,
          activities: opts.activities,
          dataConverter: { payloadCodecs: [opts.payloadCodec] },
          // Each activity runs in its request's context and span; the workflows' spans leave the sandbox by the sink.
          interceptors: { activity: activityInterceptors() },
          sinks: workflowSpanSinks(),
          workflowBundle,
          maxConcurrentActivityTaskExecutions: queue.concurrency.activities,
          maxConcurrentWorkflowTaskExecutions: queue.concurrency.workflowTasks,
          // A stop must end: an activity that ignores its cancellation is retried elsewhere (its heartbeat times out).
          shutdownForceTime: WORKER_SHUTDOWN_FORCE_MS,
        }),
      );
    }
  } catch (err) {
    await connection.close();
    throw err;
  }
  const running = workers.map((worker) => worker.run());
  opts.logger.info({ task_queues: opts.queues.map((q) => q.taskQueue) }, 'temporal worker started');
  return {
    workers,
    async shutdown() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.all(running.map((run) => run.catch(() => undefined)));
      await connection.close();
    },
  };
}

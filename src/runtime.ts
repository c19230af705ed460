import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { compileServiceContract, createApp } from './app';
import type { CompiledContract } from './lib/http/contract';
import { prepareLocations } from './locations/dataset';
import { previousCredentialsKeys, publicBaseUrlOf, type Config } from './lib/config';
import { startLocalEngines, type LocalEngines } from './lib/engines/local-engines';
import { closeEngines, connectEngines } from './lib/engines';
import { logMongoReachability } from './lib/engines/mongo';
import { temporalConnectionOf } from './lib/engines/temporal';
import type { Logger } from './lib/logger';
import { createModules, type Modules } from './services';
import { createInfra, type Infra } from './infra';
import type { Clock } from './lib/clock';
import { closeModules } from './lib/module';
import { createActivities } from '../activities';
import { bootstrapAdmin, type BootstrapResult } from './users/bootstrap';
import { startWorker, type RunningWorker, type WorkerOptions, type WorkerQueue } from './worker/create-worker';
import { resolveProviders, type Providers } from './providers';
import { startActivityDrain } from './activity/drain';
import { allDrains, startStreamDrain, type StreamDrain } from './lib/stream-drain';
import { relayUsageStream } from './integrations/usage';
import { digestSchedule } from './activity/activity.workflows';
import { retentionSchedule } from './retention/retention.workflows';
import { ensureSchedule } from './lib/engines/schedules';
import { createRelayEndpoints } from './integrations/relay/endpoints';
import { EncryptionCodec, TEMPORAL_CODEC_PATH } from './lib/engines/payload-codec';
import { gracefulStop } from './lib/http/graceful-stop';
import { answerClientErrors, readDeadlineOptions } from './lib/http/read-deadlines';
import { startMetricsServer, type MetricsServer } from './lib/metrics';
import { startWorkerProcess, type WorkerProcess } from './worker/worker-process';
import type { EngineRuntime } from './engine-runtime';

export interface RuntimeOptions {
  logger: Logger;
  /** The devstack's documented ports (`npm start` on the default data directory); left out in tests. */
  defaultPorts?: boolean;
  workflowBundle?: WorkerOptions['workflowBundle'];
  progress?: (message: string) => void;
  /** Where the process reads the time where it decides something (src/lib/clock.ts); the system's unless a test moves it. */
  clock?: Clock;
}

/** The engines a process needs: configured URLs, or the devstack for the ones left unset. */
export async function startEngines(config: Config, opts: RuntimeOptions): Promise<EngineRuntime> {
  const need = config.DEVSTACK === 'off' ? { mongo: false, redis: false, temporal: false } : config.localDefault;
  const missing = Object.entries(need)
    .filter(([, n]) => n)
    .map(([k]) => k);
  if (config.DEVSTACK === 'off' && Object.values(config.localDefault).some(Boolean)) {
    throw new Error('DEVSTACK=off needs MONGODB_URI, REDIS_URL and TEMPORAL_ADDRESS');
  }
  const progress = opts.progress ?? ((m: string) => opts.logger.info(m));
  let devstack: LocalEngines | undefined;
  if (missing.length) {
    progress(`devstack: starting local ${missing.join(', ')} in ${config.dataDir}`);
    devstack = await startLocalEngines(
      {
        dataDir: config.dataDir,
        cacheDir: config.CACHE_DIR,
        namespace: config.TEMPORAL_NAMESPACE,
        need,
        defaultPorts: opts.defaultPorts ?? false,
        progress,
        uiCodecEndpoint: config.PORT ? `${publicBaseUrlOf(config)}${TEMPORAL_CODEC_PATH}` : undefined,
      },
      config.NODE_ENV,
    );
  }
  const temporalAddress = config.TEMPORAL_ADDRESS ?? devstack!.temporal!.url;
  const temporal = temporalConnectionOf(config, temporalAddress);
  const credentialsKey = config.CREDENTIALS_KEY ?? localCredentialsKey(config.dataDir);
  const payloadCodec = new EncryptionCodec(credentialsKey, previousCredentialsKeys(config), {
    acceptPlaintext: config.TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS,
  });
  const engines = await connectEngines({
    mongoUri: config.MONGODB_URI ?? devstack!.mongo!.url,
    mongoDb: config.MONGODB_DB,
    mongoPool: { maxPoolSize: config.MONGO_MAX_POOL_SIZE, waitQueueTimeoutMS: config.MONGO_WAIT_QUEUE_TIMEOUT_MS },
    redisUrl: config.REDIS_URL ?? devstack!.redis!.url,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    redisSentinels: config.REDIS_SENTINELS
      ? { sentinels: config.REDIS_SENTINELS, name: config.REDIS_SENTINEL_NAME }
      : undefined,
    temporal,
    temporalNamespace: config.TEMPORAL_NAMESPACE,
    payloadCodec,
    kinds: {
      documents: devstack?.mongo?.kind ?? 'mongodb',
      cache: devstack?.redis?.kind ?? 'redis',
      workflows: devstack?.temporal?.kind ?? 'temporal',
    },
  });
  logMongoReachability(opts.logger);
  if (config.TEMPORAL_SEARCH_ATTRIBUTES)
    engines.searchAttributes.ensure(engines.temporal, config.TEMPORAL_NAMESPACE, opts.logger);
  return {
    engines,
    devstack,
    temporalAddress,
    temporal,
    temporalUiUrl: config.TEMPORAL_UI_URL ?? devstack?.temporal?.uiUrl ?? null,
    credentialsKey,
    payloadCodec,
    relayEndpoints: createRelayEndpoints(config),
  };
}

/** On the local default the encryption key is generated once and kept (mode 600) in the data directory. */
function localCredentialsKey(dataDir: string): string {
  const file = path.join(dataDir, 'credentials.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

export interface ServiceWorker extends RunningWorker {
  /** The provider adapters its activities use (and the sandbox server, when one was started). */
  providers: Providers;
  /** Moves recorded activity and relay usage from their Redis streams into MongoDB (flush waits for both). */
  drain: StreamDrain;
}

/** What a fresh API process would otherwise compile and load on its first requests (config WARM_UP_ON_START). */
function warmUp(contract: CompiledContract, logger: Logger): void {
  const started = performance.now();
  const validators = contract.prepareValidators();
  const regions = prepareLocations();
  const ms = Math.round(performance.now() - started);
  logger.info({ validators, regions, ms }, 'warmed up: request validators compiled, places indexed');
}

/**
 * The same for a worker, before it polls: the place dataset its maps-scrape jobs expand their locations from
 * (`startMapsJob`). A worker in a process of its own would otherwise index it on its first job, while the load
 * that brought that job runs (docs/performance.md, "A worker warm before it polls"). Inside the API process the
 * API's warm-up has indexed it already, and this finds it done.
 */
function warmUpWorker(logger: Logger): void {
  const started = performance.now();
  const regions = prepareLocations();
  logger.info({ regions, ms: Math.round(performance.now() - started) }, 'worker warmed up: places indexed');
}

/**
 * The shared pieces of a process (src/infra.ts), from its configuration and engines; an API process passes the
 * address it listens on (so it is built after listening).
 */
export function infraOf(config: Config, rt: EngineRuntime, logger: Logger, listening?: string, clock?: Clock): Infra {
  return createInfra({
    clock,
    config,
    publicBaseUrl: publicBaseUrlOf(config, listening),
    engines: rt.engines,
    logger,
    credentialsKey: rt.credentialsKey,
    temporalUiUrl: rt.temporalUiUrl,
    relayEndpoints: rt.relayEndpoints,
  });
}

/**
 * What a worker runs activities with: the process's shared pieces, the provider adapters (the worker stops them
 * when it shuts down) and the area modules (their activities).
 */
export interface WorkerBuild {
  infra: Infra;
  providers: Providers;
  modules: Modules;
}

/** The provider adapters of a process that runs a worker (the sandbox server, where a provider URL is unset). */
export async function providersFor(config: Config, logger: Logger): Promise<Providers> {
  const providers = await resolveProviders(config);
  if (providers.sandbox)
    logger.info({ url: providers.sandbox.url }, 'sandbox provider server started (no provider URL configured)');
  return providers;
}

/** A worker-only process's build: no HTTP, so its modules accept no jobs and keep no API logs. */
async function workerBuild(config: Config, rt: EngineRuntime, logger: Logger): Promise<WorkerBuild> {
  const infra = infraOf(config, rt, logger);
  const providers = await providersFor(config, logger);
  return { infra, providers, modules: createModules(infra, { providers, serves: false }) };
}

/** The task queues a worker process polls (WORKER_TASK_QUEUES), each with its own concurrency. */
export function workerQueues(config: Config): WorkerQueue[] {
  const queues = {
    interactive: {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      concurrency: { activities: config.WORKER_MAX_ACTIVITIES, workflowTasks: config.WORKER_MAX_WORKFLOW_TASKS },
    },
    bulk: {
      taskQueue: config.bulkTaskQueue,
      concurrency: {
        activities: config.WORKER_BULK_MAX_ACTIVITIES,
        workflowTasks: config.WORKER_BULK_MAX_WORKFLOW_TASKS,
      },
    },
  };
  return config.WORKER_TASK_QUEUES.map((name) => queues[name]);
}

export async function workerFor(
  config: Config,
  rt: EngineRuntime,
  opts: RuntimeOptions,
  given?: WorkerBuild,
): Promise<ServiceWorker> {
  const built = given ?? (await workerBuild(config, rt, opts.logger));
  const { providers } = built;
  if (config.WARM_UP_ON_START) warmUpWorker(opts.logger);
  const running = await startWorker({
    connection: rt.temporal,
    namespace: config.TEMPORAL_NAMESPACE,
    queues: workerQueues(config),
    payloadCodec: rt.payloadCodec,
    activities: createActivities(built.modules),
    // Its lines show as the worker's in the log viewer, also inside `npm start`.
    logger: opts.logger.child({ container: 'worker' }),
    // Tests pass the run's bundle; a production image carries one made at build time (WORKFLOW_BUNDLE_PATH).
    workflowBundle:
      opts.workflowBundle ?? (config.WORKFLOW_BUNDLE_PATH ? { codePath: config.WORKFLOW_BUNDLE_PATH } : undefined),
  }).catch(async (err) => {
    await providers.stop();
    throw err;
  });
  // The worker moves recorded activity and relay usage from Redis into MongoDB and keeps the schedules in place.
  const drain = allDrains([
    startActivityDrain(rt.engines.redis, opts.logger),
    startStreamDrain(rt.engines.redis, opts.logger, relayUsageStream),
  ]);
  // The digests' and the retention purge's schedules, on the interactive queue.
  for (const schedule of [digestSchedule, retentionSchedule]) {
    await ensureSchedule(rt.engines.temporal, schedule, config.TEMPORAL_TASK_QUEUE).catch((err) => {
      const why = (err as Error).message;
      opts.logger.warn(
        { err: why, schedule: schedule.name },
        'schedule not created; the next worker start tries again',
      );
    });
  }
  return {
    ...running,
    providers,
    drain,
    async shutdown() {
      await drain.stop();
      await running.shutdown();
      await providers.stop();
      if (!given) await closeModules(built.modules); // the API process closes the modules it shares
    },
  };
}

export interface ApiRuntime extends EngineRuntime {
  infra: Infra;
  modules: Modules;
  server: http.Server;
  url: string;
  /** Where GET /metrics is served (METRICS_PORT), when it is. */
  metricsUrl?: string;
  /** The worker inside this process (WORKER_IN_API_PROCESS)... */
  worker?: ServiceWorker;
  /** ...or in a process of its own, which this one started. */
  workerProcess?: WorkerProcess;
  admin: BootstrapResult | null;
  stop(): Promise<void>;
}

/**
 * The API process: engines, bootstrap admin, HTTP server and, on the local default, a worker (a process of its
 * own that this one starts and stops, unless WORKER_IN_API_PROCESS).
 */
export async function startApi(config: Config, opts: RuntimeOptions): Promise<ApiRuntime> {
  const rt = await startEngines(config, opts);
  const deadlines = {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
  };
  const server = http.createServer({
    // Long enough for every query the contract allows, percent-encoded (Node's default 16 KiB answers 431 first).
    maxHeaderSize: 64 * 1024,
    ...readDeadlineOptions(deadlines),
  });
  server.on('clientError', answerClientErrors(deadlines));
  const graceful = gracefulStop(server);
  let worker: ServiceWorker | undefined;
  let workerProcess: WorkerProcess | undefined;
  let providers: Providers | undefined;
  let modules: Modules | undefined;
  let metrics: MetricsServer | undefined;
  const stop = async () => {
    // Requests in flight finish (event streams told to reconnect elsewhere); only then do the engines close.
    await graceful.stop(config.SHUTDOWN_GRACE_MS, () => modules?.events.service.endStreams());
    await metrics?.close();
    if (modules) await closeModules(modules);
    else await rt.relayEndpoints.close(); // a start that failed before the modules took them over
    if (worker) await worker.shutdown();
    else await providers?.stop(); // a start that failed before the worker took them over
    await workerProcess?.stop(); // its activities end while the engines still answer
    await closeEngines(rt.engines);
    await rt.devstack?.stop();
  };
  try {
    const admin = await bootstrapAdmin({
      email: config.BOOTSTRAP_ADMIN_EMAIL,
      password: config.BOOTSTRAP_ADMIN_PASSWORD,
      localDefault: config.localDefault.mongo,
      dataDir: config.dataDir,
      logger: opts.logger,
    });
    const contract = await compileServiceContract(config);
    if (config.WARM_UP_ON_START) warmUp(contract, opts.logger);
    // Listen first so that with PORT=0 the links the service sends carry its real port.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.HOST}:${port}`;
    if (config.METRICS_PORT !== undefined)
      metrics = await startMetricsServer(config.HOST, config.METRICS_PORT, opts.logger);
    const infra = infraOf(config, rt, opts.logger, url, opts.clock);
    // A worker inside this process: its providers come first (the job modules' activities, built with the
    // services, use them). Otherwise, with RUN_WORKER, it is a process of its own (worker-process.ts).
    const inline = config.RUN_WORKER && config.WORKER_IN_API_PROCESS;
    providers = inline ? await providersFor(config, opts.logger) : undefined;
    modules = createModules(infra, { providers, serves: true });
    server.on('request', createApp(infra, modules, contract));
    worker = providers ? await workerFor(config, rt, opts, { infra, providers, modules }) : undefined;
    if (config.RUN_WORKER && !inline) workerProcess = await startWorkerProcess(config, rt, opts.logger);
    return { ...rt, infra, modules, server, url, metricsUrl: metrics?.url, worker, workerProcess, admin, stop };
  } catch (err) {
    await stop(); // nothing started here outlives a failed start
    throw err;
  }
}

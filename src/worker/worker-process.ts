import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../lib/config';
import { ManagedProcess } from '../lib/managed-process';
import type { Logger } from '../lib/logger';
import type { EngineRuntime } from '../engine-runtime';
import type { ProviderName } from '../integrations/providers';

/** How long the worker gets to bundle its workflows and start polling (seconds of CPU on a busy machine). */
const READY_TIMEOUT_MS = 180_000;
/** A stop waits this long for its activities (30 s, WORKER_SHUTDOWN_FORCE_MS) before it is killed. */
const STOP_TIMEOUT_MS = 45_000;
/** A worker that died is started again after this pause, doubled after each start that failed, up to the maximum. */
const RESTART_AFTER_MS = 1_000;
const MAX_RESTART_AFTER_MS = 60_000;
/** A worker that dies sooner than this after it became ready counts as a failed start (a crash loop backs off). */
const STABLE_AFTER_MS = 60_000;

const RELAY_URLS: Record<ProviderName, string> = {
  maps: 'RELAY_MAPS_URL',
  'parcel-tracking': 'RELAY_PARCEL_TRACKING_URL',
  messaging: 'RELAY_MESSAGING_URL',
};

export interface WorkerProcess {
  /** The running worker's pid (a restarted worker has a new one). */
  readonly pid: number | undefined;
  /** Where its output goes. */
  readonly logFile: string;
  stop(): Promise<void>;
}

/**
 * The worker of an API process that runs one (RUN_WORKER), in a process of its own (`src/worker.ts`, as
 * `npm run worker` runs it): its activities get an event loop, and on a 2-CPU machine a core, of their own instead
 * of sharing the API's, as production's separate worker processes do (docs/performance.md, "Load"). It uses this
 * process's engines (their addresses, the data directory and so its local credentials key) and, where they are the
 * sandbox, this process's relay providers, so that relays and billing syncs see one sandbox. It is a child of the
 * devstack's kind: its output in `DATA_DIR/logs/worker.log`, ended by the reaper should this process die, and
 * started again should it die on its own. Resolves once it polls Temporal (its health file).
 */
export async function startWorkerProcess(config: Config, rt: EngineRuntime, logger: Logger): Promise<WorkerProcess> {
  const healthFile = config.WORKER_HEALTH_FILE ?? path.join(config.dataDir, 'worker.health');
  const logFile = path.join(config.dataDir, 'logs', 'worker.log');
  const relays = await relayUrls(config, rt);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...relays,
    MONGODB_URI: config.MONGODB_URI ?? rt.devstack!.mongo!.url,
    MONGODB_DB: config.MONGODB_DB,
    REDIS_URL: config.REDIS_URL ?? rt.devstack!.redis!.url,
    TEMPORAL_ADDRESS: rt.temporalAddress,
    DATA_DIR: config.dataDir,
    RUN_WORKER: 'true',
    WORKER_HEALTH_FILE: healthFile,
  };
  // This process serves the metrics (a second server on the port would fail the worker's start).
  delete env.METRICS_PORT;
  // The worker's entry beside this module's: src/worker.ts under tsx, dist/src/worker.js when built. Node's own
  // flags carry over (tsx's loader, a profiler), but not an inspector, whose port this process holds.
  const entry = path.join(__dirname, '..', `worker${path.extname(__filename)}`);
  const flags = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  const typescript = entry.endsWith('.ts') && !flags.some((a) => a.includes('tsx'));
  const args = [...flags, ...(typescript ? ['--import', 'tsx'] : []), entry];
  let proc: ManagedProcess | undefined;
  const stopping = new AbortController();
  const stopped = () => stopping.signal.aborted;
  /** Starts in a row that failed: a start that timed out or died, or a worker that died soon after it started. */
  let failures = 0;
  let readyAt = 0;
  const start = async (): Promise<void> => {
    fs.rmSync(healthFile, { force: true });
    const since = Date.now();
    proc = new ManagedProcess({
      name: 'worker',
      command: process.execPath,
      args,
      env,
      logFile,
      readyTimeoutMs: READY_TIMEOUT_MS,
      ready: async () => fs.existsSync(healthFile) && fs.statSync(healthFile).mtimeMs >= since - 1000,
      onExit: (code, signal) => {
        if (stopped()) return;
        failures = Date.now() - readyAt < STABLE_AFTER_MS ? failures + 1 : 0;
        logger.error({ code, signal, log: logFile }, 'the worker process exited; starting it again');
        void restart();
      },
    });
    await proc.start();
    readyAt = Date.now();
  };
  /**
   * Starts the worker again until one start succeeds or the service stops: a restart that fails (killed while it
   * starts, its readiness timeout on a starved machine) is tried again, after a pause that doubles, rather than
   * leaving the API serving jobs that nothing runs.
   */
  const restart = async (): Promise<void> => {
    for (;;) {
      const pause = Math.min(RESTART_AFTER_MS * 2 ** Math.max(0, failures - 1), MAX_RESTART_AFTER_MS);
      await sleep(pause, undefined, { signal: stopping.signal }).catch(() => undefined);
      if (stopped()) return;
      try {
        await start();
        return;
      } catch (err) {
        if (stopped()) return;
        failures += 1;
        logger.error({ err, log: logFile, failures }, 'the worker process did not start; trying again');
      }
    }
  };
  await start();
  return {
    get pid() {
      return proc?.pid;
    },
    logFile,
    async stop() {
      stopping.abort();
      await proc?.stop(STOP_TIMEOUT_MS);
    },
  };
}

/** The relay providers' addresses as configured, or as this process's sandbox serves them (outside production). */
async function relayUrls(config: Config, rt: EngineRuntime): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const [provider, name] of Object.entries(RELAY_URLS)) {
    const url = await rt.relayEndpoints.baseUrl(provider as ProviderName);
    if (url && !config[name as keyof Config]) urls[name] = url;
  }
  return urls;
}

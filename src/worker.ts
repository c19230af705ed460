import './tracing-preload';
import { ConfigError, loadConfig } from './lib/config';
import { closeEngines } from './lib/engines';
import { createLogger, logTapOf } from './lib/logger';
import { logStoreFor } from './admin/admin.module';
import { startEngines, workerFor } from './runtime';
import { installTemporalLogger } from './worker/create-worker';
import { touchWhileRunning } from './worker/health-file';
import { freeLoopbackAddress, startMetricsServer } from './lib/metrics';
import { currentTracing } from './lib/tracing';

/** `npm run worker`: a Temporal worker with every workflow and activity, and no HTTP server. */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  // The SDK's worker metrics join this process's on /metrics (METRICS_PORT), a small server of its own.
  const metricsBindAddress = config.METRICS_PORT !== undefined ? await freeLoopbackAddress() : undefined;
  installTemporalLogger(logger, { metricsBindAddress });
  const rt = await startEngines(config, { logger });
  const tap = logTapOf(logger);
  tap?.attach(logStoreFor(config, rt.engines), 'worker');
  const worker = await workerFor(config, rt, { logger });
  const health = config.WORKER_HEALTH_FILE ? touchWhileRunning(config.WORKER_HEALTH_FILE, worker.workers) : undefined;
  const metrics =
    config.METRICS_PORT !== undefined ? await startMetricsServer(config.HOST, config.METRICS_PORT, logger) : undefined;
  const stop = async () => {
    health?.stop();
    await metrics?.close();
    await worker.shutdown();
    await tap?.detach();
    await closeEngines(rt.engines);
    await rt.devstack?.stop();
    await currentTracing()?.shutdown(); // the last spans are sent
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});

import { ConfigError, loadConfig } from './lib/config';
import { closeEngines } from './lib/engines';
import { createLogger } from './lib/logger';
import { startEngines, workerFor } from './runtime';
import { installTemporalLogger } from './worker/create-worker';

/** `npm run worker`: a Temporal worker with every workflow and activity, and no HTTP server. */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  installTemporalLogger(logger);
  const rt = await startEngines(config, { logger });
  const worker = await workerFor(config, rt, { logger });
  const stop = async () => {
    await worker.shutdown();
    await closeEngines(rt.engines);
    await rt.devstack?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : err?.stack ?? err}\n`);
  process.exit(1);
});

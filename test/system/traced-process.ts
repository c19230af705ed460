// The service in a process of its own: tracing started first from the environment (OTEL_EXPORTER_OTLP_ENDPOINT), then
// the API with a worker on its event loop, the SDK's log lines and the API's as JSON on stdout.
// Tracing patches Node's modules as they are required, which only a real process (not Jest's module registry) does.
// Prints "api ready <url>" once it listens.
import '../../src/tracing-preload';
import { loadConfig } from '../../src/lib/config';
import { createLogger } from '../../src/lib/logger';
import { currentTracing } from '../../src/lib/tracing';
import { startApi } from '../../src/runtime';
import { installTemporalLogger } from '../../src/worker/create-worker';

async function main() {
  // The worker on this process's loop, so that its log lines are on this stdout with the API's.
  const config = loadConfig({ ...process.env, PORT: '0', RUN_WORKER: 'true', WORKER_IN_API_PROCESS: 'true' });
  const logger = createLogger(config.LOG_LEVEL);
  installTemporalLogger(logger.child({ container: 'worker' }));
  const api = await startApi(config, { logger, workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } });
  process.stdout.write(`api ready ${api.url}\n`);
  process.on('SIGTERM', async () => {
    await api.stop();
    await currentTracing()?.shutdown();
    process.exit(0);
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

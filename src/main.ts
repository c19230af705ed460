import './tracing-preload';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './lib/config';
import { createLogger } from './lib/logger';
import { freeLoopbackAddress } from './lib/metrics';
import { currentTracing } from './lib/tracing';
import { startApi } from './runtime';
import { installTemporalLogger } from './worker/create-worker';

// Under steady load the heap grew to about four times what stays live before each major collection (V8's default
// growth for a high allocation rate), so RSS climbed for minutes, a sawtooth that hides a leak. Letting the heap grow
// to twice the live size keeps RSS flat within a few percent over 5 minutes of the soak, for more frequent (mostly
// concurrent) marking (docs/performance.md, "Memory under steady load"). Read by V8 at each collection, so setting
// it at start applies. NODE_OPTIONS does not take V8 flags; `node --heap-growing-percent=N` still overrides this.
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent')))
  setFlagsFromString('--heap-growing-percent=100');

/** `npm start`: the whole service in one process on the local default (engines, API, worker). */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  // The SDK's lines are the worker's; its worker metrics join /metrics where one is served and a worker runs.
  const metricsBindAddress =
    config.METRICS_PORT !== undefined && config.RUN_WORKER ? await freeLoopbackAddress() : undefined;
  installTemporalLogger(logger.child({ container: 'worker' }), { metricsBindAddress });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  // The default data directory keeps the documented ports; any other gets its own (no clash side by side).
  const defaultPorts = !process.env.DATA_DIR;
  const rt = await startApi(config, { logger, defaultPorts, progress: (m) => say(`  … ${m}`) });
  say('');
  say(`lead-service ${rt.infra.version} is running`);
  say(`  API         ${rt.url}/api/v1`);
  say(`  console     ${rt.url}/console`);
  say(`  API docs    ${rt.url}/docs`);
  say(`  console     ${rt.url}/console`);
  if (rt.temporalUiUrl) say(`  Temporal UI ${rt.temporalUiUrl}`);
  if (rt.workerProcess)
    say(`  worker      a process of its own (pid ${rt.workerProcess.pid}; log ${rt.workerProcess.logFile})`);
  else if (rt.worker) say('  worker      inside this process');
  say(
    `  engines     ${Object.values(rt.engines.kinds).join(', ')}${rt.devstack ? ` (data in ${config.dataDir})` : ''}`,
  );
  if (rt.admin?.newPassword) {
    say(`  dev admin   ${rt.admin.email} / ${rt.admin.newPassword}   (shown once; also in ${rt.admin.passwordFile})`);
  } else if (rt.admin?.passwordFile) {
    say(`  dev admin   ${rt.admin.email} (password in ${rt.admin.passwordFile})`);
  } else if (rt.admin) {
    say(`  admin       ${rt.admin.email} (from BOOTSTRAP_ADMIN_EMAIL)`);
  }
  say('');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await rt.stop();
    await currentTracing()?.shutdown(); // the last spans are sent
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});

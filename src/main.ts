import './tracing-preload';
import { ConfigError, loadConfig } from './lib/config';
import { createLogger } from './lib/logger';
import { freeLoopbackAddress } from './lib/metrics';
import { currentTracing } from './lib/tracing';
import { startApi } from './runtime';
import { installTemporalLogger } from './worker/create-worker';

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
  say(`  API docs    ${rt.url}/docs`);
  if (rt.temporalUiUrl) say(`  Temporal UI ${rt.temporalUiUrl}`);
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

import path from 'node:path';
import { CACHE_DIR } from '../../src/lib/cache-dir';
import { prepareMachine } from './prepare';
import { DEFAULT_PORTS, startDevstack } from '.';

const USAGE = 'usage: npm run devstack -- prepare [--service-only] | start';

/**
 * `npm run devstack -- prepare`: installs what a fresh machine lacks for the service and its tests (Debian
 * packages as root, the engines built with Go, the time-skipping test server fetched with Maven, promtool built
 * with Go); the tests' global setup runs it when something is missing, and CI runs it first so a first build
 * shows its progress.
 * `--service-only` leaves out what only the tests need.
 * `npm run devstack -- start`: runs the engines alone, for a worker or an API started separately.
 */
async function main() {
  const [command = 'prepare', ...flags] = process.argv.slice(2);
  const say = (m: string) => process.stdout.write(`[devstack] ${m}\n`);
  if (command === 'prepare') {
    await prepareMachine({ tests: !flags.includes('--service-only'), engines: true, progress: say });
    say(`ready: engines and tools cached in ${CACHE_DIR}`);
    return;
  }
  if (command === 'start') {
    const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
    const stack = await startDevstack({
      dataDir,
      cacheDir: CACHE_DIR,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      need: { mongo: true, redis: true, temporal: true },
      ports: process.env.DATA_DIR ? undefined : DEFAULT_PORTS,
      progress: say,
    });
    say(`MONGODB_URI=${stack.mongo!.url}`);
    say(`REDIS_URL=${stack.redis!.url}`);
    say(`TEMPORAL_ADDRESS=${stack.temporal!.url}   (UI ${stack.temporal!.uiUrl})`);
    const stop = () => void stack.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }
  throw new Error(`unknown command ${command}: ${USAGE}`);
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});

import os from 'node:os';
import path from 'node:path';
import { TEMPORAL_BUILD, goBuild, onPath, redisServerBinary } from './binaries';
import { FERRETDB_BUILD } from './ferretdb-build';
import { temporalTestServer } from './temporal-test-server';
import { DEFAULT_PORTS, startDevstack } from '.';

/**
 * `npm run devstack -- prepare`: finds or builds every local engine binary, and the time-skipping test
 * server the workflow tests use (CI runs this first, so a first build shows its progress before the tests
 * start).
 * `npm run devstack -- start`: runs the engines alone, for a worker or an API started separately.
 */
async function main() {
  const command = process.argv[2] ?? 'prepare';
  const cacheDir = process.env.CACHE_DIR ?? path.join(os.homedir(), '.cache', 'lead-service');
  const binDir = path.join(cacheDir, 'bin');
  const say = (m: string) => process.stdout.write(`[devstack] ${m}\n`);
  if (command === 'prepare') {
    const mongo = onPath('mongod') ?? (await goBuild(FERRETDB_BUILD, binDir, say));
    const temporal = onPath('temporal') ?? (await goBuild(TEMPORAL_BUILD, binDir, say));
    const redis = await redisServerBinary(say);
    const testServer = await temporalTestServer(cacheDir, say);
    say(`documents: ${mongo}\n[devstack] workflows: ${temporal}\n[devstack] cache: ${redis}\n[devstack] workflow tests (time-skipping): ${testServer}`);
    return;
  }
  if (command === 'start') {
    const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
    const stack = await startDevstack({
      dataDir, cacheDir, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      need: { mongo: true, redis: true, temporal: true }, ports: process.env.DATA_DIR ? undefined : DEFAULT_PORTS, progress: say,
    });
    say(`MONGODB_URI=${stack.mongo!.url}`);
    say(`REDIS_URL=${stack.redis!.url}`);
    say(`TEMPORAL_ADDRESS=${stack.temporal!.url}   (UI ${stack.temporal!.uiUrl})`);
    const stop = () => void stack.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }
  throw new Error(`unknown command ${command}: use prepare or start`);
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});

// The API in a process of its own (no worker), on the test file's database and Redis prefix, so a test can
// check what another API process sees. Prints "api ready <url>" once it listens.
import { loadConfig } from '../../src/lib/config';
import { createLogger } from '../../src/lib/logger';
import { startApi } from '../../src/runtime';

async function main() {
  const config = loadConfig({ ...process.env, PORT: '0', RUN_WORKER: 'false' });
  const api = await startApi(config, { logger: createLogger('silent') });
  process.stdout.write(`api ready ${api.url}\n`);
  process.on('SIGTERM', () => void api.stop().then(() => process.exit(0)));
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

// The API in a process of its own (no worker), on the test file's database and Redis prefix, so a test can
// check what another API process sees. Prints "api ready <url>" once it listens. TEST_CLOCK_AT (ms since the
// epoch) stands its clock still there, as a test's fake clock stands the first process's (test/support/fake-clock.ts).
import { loadConfig } from '../../src/lib/config';
import { createLogger } from '../../src/lib/logger';
import { startApi } from '../../src/runtime';
import { fakeClock } from './fake-clock';

async function main() {
  const config = loadConfig({ ...process.env, PORT: '0', RUN_WORKER: 'false' });
  const clock = process.env.TEST_CLOCK_AT ? fakeClock(Number(process.env.TEST_CLOCK_AT)) : undefined;
  const api = await startApi(config, { logger: createLogger('silent'), clock });
  process.stdout.write(`api ready ${api.url}\n`);
  process.on('SIGTERM', () => void api.stop().then(() => process.exit(0)));
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

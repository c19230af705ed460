// A process that starts a redis-server through the devstack and then just lives, so a test can kill it with SIGKILL.
import { startRedis } from '../../tools/devstack/engines';
import { BIN_DIR } from '../../src/lib/cache-dir';

startRedis({ dataDir: process.env.OWNER_DATA_DIR!, binDir: BIN_DIR, progress: () => undefined })
  .then((redis) => {
    process.stdout.write(`engine ready ${redis.url}\n`);
    setInterval(() => undefined, 60_000);
  })
  .catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  });

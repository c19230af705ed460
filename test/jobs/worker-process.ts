// A worker in its own process, so a test can kill it (SIGKILL) in the middle of a job.
import { loadConfig } from '../../src/lib/config';
import { createLogger } from '../../src/lib/logger';
import { startEngines, workerFor } from '../../src/runtime';

async function main() {
  const config = loadConfig();
  const logger = createLogger('silent');
  const rt = await startEngines(config, { logger });
  await workerFor(config, rt, { logger, workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } });
  process.stdout.write('worker ready\n');
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

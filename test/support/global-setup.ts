import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startDevstack, type Devstack } from '../../tools/devstack';
import { prepareMachine, testMachineReady } from '../../tools/devstack/prepare';
import { bundleWorkflows } from '../../src/worker/create-worker';
import { CACHE_DIR } from '../../src/lib/cache-dir';
import { RUN_MARKER } from './leftovers';

/**
 * Prepares a fresh machine first when it lacks something the tests need (`npm run devstack -- prepare`: Debian
 * packages, the time-skipping test server). Then starts one devstack for the whole run (or uses MONGODB_URI,
 * REDIS_URL and TEMPORAL_ADDRESS when set), bundles the workflows once, and hands everything to the test files
 * through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  // Everything the run starts inherits it: the global teardown ends what is still running with it.
  process.env[RUN_MARKER] = randomBytes(8).toString('hex');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-service-test-'));
  const need = {
    mongo: !process.env.MONGODB_URI,
    redis: !process.env.REDIS_URL,
    temporal: !process.env.TEMPORAL_ADDRESS,
  };
  const log = (m: string) => process.stdout.write(`[devstack] ${m}\n`);
  if (!testMachineReady()) await prepareMachine({ tests: true, engines: false, progress: log });
  let devstack: Devstack | undefined;
  if (Object.values(need).some(Boolean)) {
    devstack = await startDevstack({
      dataDir,
      cacheDir: CACHE_DIR,
      namespace: 'default',
      need,
      progress: log,
    });
  }
  process.env.MONGODB_URI ??= devstack!.mongo!.url;
  process.env.REDIS_URL ??= devstack!.redis!.url;
  process.env.TEMPORAL_ADDRESS ??= devstack!.temporal!.url;
  process.env.TEST_DOCUMENTS_KIND = devstack?.mongo?.kind ?? 'mongodb';
  process.env.CREDENTIALS_KEY ??= randomBytes(32).toString('hex');
  process.env.TEST_DATA_DIR = dataDir;

  const bundle = await bundleWorkflows();
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, bundle.code);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;

  (globalThis as { __devstack?: Devstack }).__devstack = devstack;
  const kinds = [devstack?.mongo?.kind, devstack?.redis?.kind, devstack?.temporal?.kind].filter(Boolean);
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${kinds.join(', ') || 'configured engines'}`);
}

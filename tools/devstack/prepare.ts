import fs from 'node:fs';
import path from 'node:path';
import { PROMTOOL_BUILD, TEMPORAL_BUILD, goBuild, onPath, type Progress } from './binaries';
import { BIN_DIR, CACHE_DIR } from '../../src/lib/cache-dir';
import { ferretdbBuild } from './ferretdb/build';
import {
  CHROMIUM,
  REDIS_SERVER,
  SERVICE_NEEDS,
  TEST_NEEDS,
  ensureSystemPackages,
  missingNeeds,
  type SystemNeed,
} from './system-packages';
import { temporalTestServer, testServerReady } from './temporal-test-server';

export interface PrepareOptions {
  /** Also what the tests need: Chromium, Java with Maven for the time-skipping test server, and promtool. */
  tests: boolean;
  /** Build the local engines too (FerretDB and the Temporal CLI), which a configured URL makes unnecessary. */
  engines: boolean;
  progress: Progress;
}

/**
 * Everything a fresh machine lacks, made ready once: Debian packages (as root with apt), the engines built
 * with Go, and for the tests the time-skipping test server fetched with Maven and promtool built with Go, all cached
 * outside the repository. A second
 * call finds it all and returns at once.
 */
export async function prepareMachine(opts: PrepareOptions): Promise<void> {
  await ensureSystemPackages(machineNeeds(opts.tests), opts.progress);
  if (opts.engines) {
    if (!onPath('mongod')) await goBuild(ferretdbBuild(), BIN_DIR, opts.progress);
    if (!onPath('temporal')) await goBuild(TEMPORAL_BUILD, BIN_DIR, opts.progress);
  }
  if (opts.tests) {
    await temporalTestServer(CACHE_DIR, opts.progress);
    await goBuild(PROMTOOL_BUILD, BIN_DIR, opts.progress);
  }
}

/** Where the tests' promtool is once prepared (PROMTOOL_BUILD). */
export const PROMTOOL = path.join(BIN_DIR, PROMTOOL_BUILD.cacheName!);

/** Whether `prepareMachine({ tests: true })` would find something to do (engines aside). */
export function testMachineReady(): boolean {
  return !missingNeeds(machineNeeds(true)).length && testServerReady(CACHE_DIR) && fs.existsSync(PROMTOOL);
}

/** A configured Redis or browser stands in for the package. */
function machineNeeds(tests: boolean): SystemNeed[] {
  return (tests ? TEST_NEEDS : SERVICE_NEEDS).filter(
    (need) => !(need === REDIS_SERVER && process.env.REDIS_URL) && !(need === CHROMIUM && process.env.CHROMIUM_PATH),
  );
}

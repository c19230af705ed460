import { TEMPORAL_BUILD, goBuild, onPath, type Progress } from './binaries';
import { BIN_DIR, CACHE_DIR } from '../cache-dir';
import { FERRETDB_BUILD } from './ferretdb-build';
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
  /** Also what the tests need: Chromium, and Java with Maven for the time-skipping test server. */
  tests: boolean;
  /** Build the local engines too (FerretDB and the Temporal CLI), which a configured URL makes unnecessary. */
  engines: boolean;
  progress: Progress;
}

/**
 * Everything a fresh machine lacks, made ready once: Debian packages (as root with apt), the engines built
 * with Go, and the time-skipping test server fetched with Maven, all cached outside the repository. A second
 * call finds it all and returns at once.
 */
export async function prepareMachine(opts: PrepareOptions): Promise<void> {
  await ensureSystemPackages(machineNeeds(opts.tests), opts.progress);
  if (opts.engines) {
    if (!onPath('mongod')) await goBuild(FERRETDB_BUILD, BIN_DIR, opts.progress);
    if (!onPath('temporal')) await goBuild(TEMPORAL_BUILD, BIN_DIR, opts.progress);
  }
  if (opts.tests) await temporalTestServer(CACHE_DIR, opts.progress);
}

/** Whether `prepareMachine({ tests: true })` would find something to do (engines aside). */
export function testMachineReady(): boolean {
  return !missingNeeds(machineNeeds(true)).length && testServerReady(CACHE_DIR);
}

/** A configured Redis or browser stands in for the package. */
function machineNeeds(tests: boolean): SystemNeed[] {
  return (tests ? TEST_NEEDS : SERVICE_NEEDS).filter(
    (need) => !(need === REDIS_SERVER && process.env.REDIS_URL) && !(need === CHROMIUM && process.env.CHROMIUM_PATH),
  );
}

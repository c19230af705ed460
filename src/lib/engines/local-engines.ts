import fs from 'node:fs';
import path from 'node:path';

/** One engine the devstack started: where it listens and what it is. */
export interface LocalEngine {
  url: string;
  kind: string;
}

/** The local engines of development and tests (tools/devstack), as a process uses them. */
export interface LocalEngines {
  mongo?: LocalEngine;
  redis?: LocalEngine;
  temporal?: LocalEngine & { uiUrl: string | null };
  stop(): Promise<void>;
}

export interface LocalEngineOptions {
  dataDir: string;
  cacheDir: string;
  namespace: string;
  need: { mongo: boolean; redis: boolean; temporal: boolean };
  /** The documented ports (`npm start` on the default data directory); otherwise ones derived from its path. */
  defaultPorts: boolean;
  progress: (message: string) => void;
  uiCodecEndpoint?: string;
}

/** What tools/devstack offers a process: tools/devstack/index.ts declares its export with this type. */
export interface DevstackModule {
  startLocalEngines(opts: LocalEngineOptions): Promise<LocalEngines>;
}

/**
 * tools/devstack, from this module's folder (src/lib/engines under tsx; dist/src/lib/engines when built, where no
 * such folder exists: the build and the image hold no development tooling).
 */
const DEVSTACK_MODULE = path.join(__dirname, '..', '..', '..', 'tools', 'devstack');

/**
 * The one seam between the service and its development tooling: starts the devstack for the engines no URL is
 * configured for (the local default). It is loaded only here, when it is needed, and never in production; the module
 * path is a variable, which the compiler does not follow, so the production build leaves it out
 * (test/deploy/build-files.test.ts).
 */
export async function startLocalEngines(opts: LocalEngineOptions, nodeEnv: string): Promise<LocalEngines> {
  if (nodeEnv === 'production') {
    throw new Error(
      'NODE_ENV=production needs MONGODB_URI, REDIS_URL and TEMPORAL_ADDRESS: ' +
        'the local engines (tools/devstack) are development tooling',
    );
  }
  if (!fs.existsSync(DEVSTACK_MODULE)) {
    throw new Error(
      'This build has no local engines (tools/devstack): set MONGODB_URI, REDIS_URL and TEMPORAL_ADDRESS',
    );
  }
  const devstack = (await import(DEVSTACK_MODULE)) as DevstackModule;
  return devstack.startLocalEngines(opts);
}

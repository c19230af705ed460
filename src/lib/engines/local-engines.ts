/** One engine the devstack started: where it listens and what it is. */
export interface LocalEngine {
  url: string;
  kind: string;
}

/** The local engines of development and tests (src/lib/devstack), as a process uses them. */
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

/**
 * Starts the devstack for the engines no URL is configured for. The devstack is development tooling and stays out
 * of the production build (tsconfig.build.json), so it is loaded only here, when it is needed: the module path is a
 * variable, which the compiler does not follow.
 */
export async function startLocalEngines(opts: LocalEngineOptions): Promise<LocalEngines> {
  const devstackModule: string = '../devstack';
  const { startDevstack, DEFAULT_PORTS } = await import(devstackModule);
  const { defaultPorts, ...rest } = opts;
  return startDevstack({ ...rest, ports: defaultPorts ? DEFAULT_PORTS : undefined });
}

import type { Config } from '../lib/config';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { ProviderError } from './errors';
import { createMapsProvider, type MapsProvider } from './maps';
import { createResearchProvider, type ResearchProvider } from './research';

export interface Providers {
  maps: MapsProvider;
  research: ResearchProvider;
  /** The in-process sandbox server, when some provider URL was left unset outside production. */
  sandbox?: Sandbox;
  stop(): Promise<void>;
}

const notConfigured = (name: string, setting: string) => async () => {
  throw new ProviderError(name, 'not_configured', `${setting} is not configured`);
};

/**
 * The provider adapters a worker uses: the configured base URLs, or the sandbox server started here
 * (and stopped with the worker) for the ones left unset. In production an unset URL is not replaced
 * by the sandbox: jobs that need that provider fail with a clear reason.
 */
export async function resolveProviders(config: Config): Promise<Providers> {
  const useSandbox = config.NODE_ENV !== 'production' && (!config.MAPS_PROVIDER_URL || !config.RESEARCH_PROVIDER_URL);
  const sandbox = useSandbox ? await startSandbox() : undefined;
  const timeoutMs = config.PROVIDER_TIMEOUT_MS;
  const mapsUrl = config.MAPS_PROVIDER_URL ?? sandbox?.url;
  const researchUrl = config.RESEARCH_PROVIDER_URL ?? (sandbox ? `${sandbox.url}/research` : undefined);
  return {
    maps: mapsUrl
      ? createMapsProvider({ baseUrl: mapsUrl, key: config.MAPS_PROVIDER_KEY, timeoutMs })
      : { textSearch: notConfigured('maps', 'MAPS_PROVIDER_URL') },
    research: researchUrl
      ? createResearchProvider({ baseUrl: researchUrl, key: config.RESEARCH_PROVIDER_KEY, timeoutMs })
      : { fetchPage: notConfigured('research', 'RESEARCH_PROVIDER_URL') },
    sandbox,
    stop: async () => sandbox?.stop(),
  };
}

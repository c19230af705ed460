import { Agent } from 'undici';
import type { Config } from '../../lib/config';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { ProviderName } from '../providers';

const CONFIGURED: Record<ProviderName, 'RELAY_MAPS_URL' | 'RELAY_PARCEL_TRACKING_URL' | 'RELAY_MESSAGING_URL'> = {
  maps: 'RELAY_MAPS_URL',
  'parcel-tracking': 'RELAY_PARCEL_TRACKING_URL',
  messaging: 'RELAY_MESSAGING_URL',
};
/** Where each provider lives on the sandbox server. */
export const SANDBOX_BASE: Record<ProviderName, string> = {
  maps: '/maps/api',
  'parcel-tracking': '/parcel-tracking/v4',
  messaging: '/messaging',
};

/** Per provider: connections per origin, and how long an idle one is kept. */
const POOL = { connections: 64, keepAliveTimeout: 10_000 } as const;

/**
 * The base URL of each relay provider: the configured one, or (outside production) the in-process
 * sandbox server, started on first use. In production an unset URL means the provider is unreachable
 * (503), never the sandbox.
 */
export function createRelayEndpoints(config: Config) {
  let sandbox: Promise<Sandbox> | undefined;
  const pools = new Map<ProviderName, Agent>();
  return {
    async baseUrl(provider: ProviderName): Promise<string | null> {
      const configured = config[CONFIGURED[provider]];
      if (configured) return configured.replace(/\/$/, '');
      if (config.NODE_ENV === 'production') return null;
      return `${(await (sandbox ??= startSandbox())).url}${SANDBOX_BASE[provider]}`;
    },
    /**
     * The provider's connections: kept alive between calls (a relay call costs no TCP or TLS handshake) and
     * bounded, so a burst of calls queues for a connection instead of opening hundreds.
     */
    dispatcher(provider: ProviderName): Agent {
      let pool = pools.get(provider);
      if (!pool) pools.set(provider, (pool = new Agent(POOL)));
      return pool;
    },
    /** The sandbox, if one was started (tests read what it received). */
    sandbox: () => sandbox,
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
      if (sandbox) await (await sandbox).stop();
    },
  };
}

export type RelayEndpoints = ReturnType<typeof createRelayEndpoints>;

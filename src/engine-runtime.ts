import type { Engines } from './lib/engines';
import type { LocalEngines } from './lib/engines/local-engines';
import type { TemporalConnection } from './lib/engines/temporal';
import type { EncryptionCodec } from './lib/engines/payload-codec';
import type { RelayEndpoints } from './integrations/relay/endpoints';

/**
 * The engines a process runs on, once connected (runtime.ts's startEngines): a file of its own so the worker
 * process, which runtime.ts starts, takes the type without importing runtime.ts back.
 */
export interface EngineRuntime {
  engines: Engines;
  devstack?: LocalEngines;
  temporalAddress: string;
  /** The address with its TLS and API key, for the API's client and the worker alike. */
  temporal: TemporalConnection;
  temporalUiUrl: string | null;
  credentialsKey: string;
  /** Encrypts workflow payloads for the API's client and the worker alike. */
  payloadCodec: EncryptionCodec;
  /** Where the relays' providers are (the API's relays and the worker's billing syncs share one sandbox). */
  relayEndpoints: RelayEndpoints;
}

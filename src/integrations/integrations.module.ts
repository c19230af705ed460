import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import { previousCredentialsKeys, type Config } from '../lib/config';
import { KeyRing } from '../lib/crypto';
import { createLocks } from '../lib/locks';
import type { Logger } from '../lib/logger';
import type { Notifier } from '../notifications/notifier';
import { createIntegrationsService } from './integrations.service';
import { createLimits } from './limits';
import { createKeyCache } from './key-store';
import type { RelayEndpoints } from './relay/endpoints';
import { createRelay } from './relay/relay.service';
import { createSpendNotifier } from './spend';
import { createUsageRecorder } from './usage';

/** The key ring of stored provider credentials: CREDENTIALS_KEY, and the keys it replaced. */
export const keyRingFor = (config: Config, credentialsKey: string) =>
  new KeyRing(credentialsKey, previousCredentialsKeys(config));

/** The integrations area of a process: key management and the relays, sharing limits and endpoints. */
export function createIntegrations(deps: {
  config: Config;
  redis: Redis;
  temporal: Client;
  notifier: Notifier;
  logger: Logger;
  credentialsKey: string;
  endpoints: RelayEndpoints;
}) {
  const { config } = deps;
  const ring = keyRingFor(config, deps.credentialsKey);
  const limits = createLimits(deps.redis);
  const keys = createKeyCache(deps.redis);
  const { endpoints } = deps;
  const bounds = { timeoutMs: config.RELAY_TIMEOUT_MS, maxBytes: config.RELAY_MAX_RESPONSE_BYTES };
  return {
    service: createIntegrationsService({
      redis: deps.redis,
      ring,
      keys,
      limits,
      lock: createLocks(deps.redis).run,
      endpoints,
      temporal: deps.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      ...bounds,
    }),
    relay: createRelay({
      ring,
      keys,
      limits,
      endpoints,
      notifySpend: createSpendNotifier({ ...deps, publicBaseUrl: () => config.publicBaseUrl }),
      recordCall: createUsageRecorder(deps.redis, deps.logger),
      logger: deps.logger,
      ...bounds,
    }),
    endpoints,
    keys,
    close: () => endpoints.close(),
  };
}

export type Integrations = ReturnType<typeof createIntegrations>;

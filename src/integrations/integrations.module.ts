import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { storedSoFar } from '../lib/stream-drain';
import { createIntegrationActivities } from '../../activities/integrations';
import { integrationsRoutes } from './integrations.routes';
import { createIntegrationsService } from './integrations.service';
import { createIntegrationWorkflows } from './integrations.workflows';
import { createLimits } from './limits';
import { createKeyCache } from './key-store';
import { createRelay } from './relay/relay.service';
import { createSpendNotifier } from './spend';
import { createUsageRecorder, RELAY_USAGE_STREAM } from './usage';
import { createAgentSpend } from '../agents/agent-spend';

export type IntegrationsDeps = Pick<
  Infra,
  | 'config'
  | 'engines'
  | 'logger'
  | 'notifier'
  | 'ring'
  | 'lock'
  | 'relayEndpoints'
  | 'brands'
  | 'publicBaseUrl'
  | 'clock'
>;

/**
 * A brand's provider keys (sealed under the key ring, with their limits, spend and billing syncs) and the relays
 * that call providers with them, sharing the limits, the key cache and the providers' endpoints.
 */
export function createIntegrationsModule(deps: IntegrationsDeps) {
  const { config, engines, ring } = deps;
  const limits = createLimits(engines.redis, deps.clock);
  const keys = createKeyCache(engines.redis);
  const endpoints = deps.relayEndpoints;
  const bounds = { timeoutMs: config.RELAY_TIMEOUT_MS, maxBytes: config.RELAY_MAX_RESPONSE_BYTES };
  const service = createIntegrationsService({
    redis: engines.redis,
    ring,
    keys,
    limits,
    lock: deps.lock,
    endpoints,
    workflows: createIntegrationWorkflows(engines.temporal, config.TEMPORAL_TASK_QUEUE),
    ...bounds,
  });
  const relay = createRelay({
    ring,
    keys,
    limits,
    endpoints,
    notifySpend: createSpendNotifier(deps),
    recordCall: createUsageRecorder(engines.redis, deps.logger),
    agentSpend: createAgentSpend(engines.redis, deps.clock),
    clock: deps.clock,
    logger: deps.logger,
    ...bounds,
  });
  return {
    handlers: integrationsRoutes({ service, relay, brands: deps.brands.lookup }),
    activities: createIntegrationActivities({
      integrations: {
        ring,
        limits,
        endpoints,
        ...bounds,
        usageStored: () => storedSoFar(engines.redis, RELAY_USAGE_STREAM),
      },
    }),
    close: () => endpoints.close(),
    /** What other areas use: a brand's active provider credential (the signup page's map). */
    service,
    /** The key cache (its changed() makes every process read keys afresh). */
    keys,
  } satisfies AreaModule;
}

import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createAccessRequestActivities } from '../../activities/access-requests';
import { createAccessRequests } from './access-requests.service';
import { agentsRoutes } from './agents.routes';
import { createAccessRequestWorkflows } from './agents.workflows';
import { createTokens } from './tokens.service';
import { createAgentRequestLimits } from './request-limits';
import { createAgentSpend } from './agent-spend';
import type { CreatorGone } from '../watches/watch-creators';

export type AgentsDeps = Pick<
  Infra,
  'config' | 'engines' | 'credentialsKey' | 'credentials' | 'publicBaseUrl' | 'clock'
> & {
  /** Pauses (or hands on) the watches of a token that is revoked or replaced (the watches area). */
  creatorGone?: (gone: CreatorGone) => Promise<void>;
};

/**
 * Agents' access: a request approved by link through its workflow (which issues the token), the token's
 * pickup, and the tokens and per-brand agent users a client manages. Revoking one invalidates the credential
 * cache.
 */
export function createAgentsModule(deps: AgentsDeps) {
  const { config, engines } = deps;
  const workflows = createAccessRequestWorkflows(engines.temporal, config.TEMPORAL_TASK_QUEUE);
  const requests = createAccessRequests({
    workflows,
    redis: engines.redis,
    clock: deps.clock,
    credentialsKey: deps.credentialsKey,
    publicBaseUrl: deps.publicBaseUrl,
    ttlSeconds: config.ACCESS_REQUEST_TTL_SECONDS,
    ratePerHour: config.ACCESS_REQUEST_RATE_PER_HOUR,
  });
  const requestLimits = createAgentRequestLimits(engines.redis, deps.clock);
  const tokens = createTokens({
    invalidate: deps.credentials.invalidate,
    spend: createAgentSpend(engines.redis, deps.clock),
    creatorGone: deps.creatorGone,
    requestLimits,
  });
  return {
    handlers: agentsRoutes({ requests, tokens }),
    activities: createAccessRequestActivities({ agents: { credentialsKey: deps.credentialsKey } }),
    /** Access requests as the benchmarks seed them (request, then poll for the token). */
    requests,
    /** The gate that applies agents' rate limits (after authentication, before anything else reads the request). */
    limitRequests: requestLimits.gate,
  } satisfies AreaModule;
}

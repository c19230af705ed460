import type { JsonBody } from '../lib/contract-types';
import type { Page } from '../lib/pagination';
import type { Caller } from '../lib/tenancy';
import type { CreatorGone } from '../watches/watch-creators';
import type { AgentSpend } from './agent-spend';
import type { AgentRequestLimits } from './request-limits';
import { describeToken, listAgentUsers, listTokens } from './token-reads';
import { regenerateToken, revokeAgentUser, revokeToken } from './token-revocation';
import { updateAgentUserLimits, updateTokenLimits } from './token-limits';

export interface TokensDeps {
  /** Drops every process's cached credentials (a revoked token or changed limit counts from the next request). */
  invalidate: () => Promise<void>;
  spend: AgentSpend;
  /** A token revoked, or no longer acting for a brand, pauses the watches it created for it (src/watches). */
  creatorGone?: (gone: CreatorGone) => Promise<void>;
  requestLimits: Pick<AgentRequestLimits, 'remaining'>;
}

/**
 * Agent tokens as their client and brands manage them: read (token-reads.ts), revoked or regenerated
 * (token-revocation.ts), and their limits changed (token-limits.ts), per token and per brand's agent user.
 */
export function createTokens(deps: TokensDeps) {
  const { spend } = deps;
  return {
    list: (caller: Caller, scope: string | null, includeInactive: boolean, page: Page) =>
      listTokens(spend, caller, scope, includeInactive, page),
    describe: (caller: Caller, usedAt: Date) => describeToken(deps, caller, usedAt),
    revoke: (caller: Caller, scope: string | null, tokenId: string) => revokeToken(deps, caller, scope, tokenId),
    agentUsers: (caller: Caller, brandId: number, includeInactive: boolean, page: Page) =>
      listAgentUsers(spend, caller, brandId, includeInactive, page),
    revokeAgentUser: (caller: Caller, brandId: number, agentUserId: string) =>
      revokeAgentUser(deps, caller, brandId, agentUserId),
    regenerate: (caller: Caller, brandId: number, agentUserId: string) =>
      regenerateToken(deps, caller, brandId, agentUserId),
    updateAgentUserLimits: (
      caller: Caller,
      brandId: number,
      agentUserId: string,
      changes: JsonBody<'updateAgentUserLimits'>,
    ) => updateAgentUserLimits(deps, caller, brandId, agentUserId, changes),
    updateTokenLimits: (
      caller: Caller,
      scope: string | null,
      tokenId: string,
      changes: JsonBody<'updateAccessTokenLimits'>,
    ) => updateTokenLimits(deps, caller, scope, tokenId, changes),
  };
}

export type Tokens = ReturnType<typeof createTokens>;

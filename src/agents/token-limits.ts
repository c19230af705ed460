/**
 * An agent's limits changed by its client's administrators: an agent user's in its brand, or those of a token that
 * acts for no brand. Every API process holds the agent to them from its next request.
 */
import type { JsonBody, Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { Caller } from '../lib/tenancy';
import { AccessTokenModel } from './access-token.model';
import { AgentUserModel } from './agent-user.model';
import type { AgentSpend } from './agent-spend';
import { changedLimits, limitValuesOf } from './agent-limits';
import { agentUserIn, tokenInScope } from './token-lookup';
import { agentUserViews, statusOf, withLastUse } from './token-views';

export interface LimitChangeDeps {
  invalidate: () => Promise<void>;
  spend: AgentSpend;
}

/** Changes an agent's limits in this brand; every API process holds it to them from its next request. */
export async function updateAgentUserLimits(
  deps: LimitChangeDeps,
  caller: Caller,
  brandId: number,
  agentUserId: string,
  changes: JsonBody<'updateAgentUserLimits'>,
): Promise<Schemas['AgentUser']> {
  const agent = await agentUserIn(caller, brandId, agentUserId);
  if (!agent.is_active) throw AppError.conflict('This agent was revoked in this brand');
  const limits = changedLimits(limitValuesOf(agent), changes);
  await AgentUserModel.updateOne({ _id: agent._id, client_id: agent.client_id }, limits);
  await deps.invalidate();
  const [view] = await agentUserViews(deps.spend, agent.client_id, [{ ...agent, ...limits }]);
  return view;
}

/**
 * Changes the limits of a token that acts for no brand, which it is held to (one with brands is held to its
 * agent users' limits, each changed in its brand). Its client's administrators: the credential triple, its
 * brand_admin users, a super_admin.
 */
export async function updateTokenLimits(
  deps: Pick<LimitChangeDeps, 'invalidate'>,
  caller: Caller,
  scope: string | null,
  tokenId: string,
  changes: JsonBody<'updateAccessTokenLimits'>,
): Promise<Schemas['AccessToken']> {
  if (caller.kind !== 'client' && caller.role !== 'super_admin' && caller.role !== 'brand_admin')
    throw AppError.forbidden("Only the client's administrators change an agent token's limits");
  const t = await tokenInScope(scope, tokenId);
  if (t.brand_ids.length)
    throw AppError.conflict(
      'This token acts for brands and is held to the limits of its agent user in each; change them with ' +
        'PATCH /api/v1/brands/{brand_id}/agent-users/{agent_user_id}',
    );
  if (statusOf(t) !== 'active') throw AppError.conflict(`This token is ${statusOf(t)}`);
  const limits = changedLimits(limitValuesOf(t), changes);
  await AccessTokenModel.updateOne({ _id: t._id, client_id: t.client_id }, limits);
  await deps.invalidate();
  const [token] = await withLastUse([{ ...t, ...limits }]);
  return token;
}

/**
 * Agent tokens ended or replaced: revoked in every brand, taken away from one brand (its agent user revoked), or
 * regenerated (a new token, the old one stopped at once). Authentication sees each change on the next request, on
 * every process, and the watches a token created pause or pass to its successor.
 */
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Caller } from '../lib/tenancy';
import { agentBrandsManagedBy, grantableBrands } from '../brands/brand-access';
import type { CreatorGone } from '../watches/watch-creators';
import { AccessTokenModel } from './access-token.model';
import { AgentUserModel } from './agent-user.model';
import type { AgentSpend } from './agent-spend';
import { limitValuesOf } from './agent-limits';
import { storeToken } from './issue-token';
import { newAccessToken } from './token-format';
import { agentUserIn, tokenInScope, tokenOf } from './token-lookup';
import { agentUserViews, withLastUse } from './token-views';

export interface RevocationDeps {
  invalidate: () => Promise<void>;
  spend: AgentSpend;
  /** A token revoked, or no longer acting for a brand, pauses the watches it created for it (src/watches). */
  creatorGone?: (gone: CreatorGone) => Promise<void>;
}

/**
 * Revokes a token in every brand; authentication sees it on the next request, on every process. A dashboard
 * user revokes only a token that acts for no brand but theirs: a token they do not see is 404, one that also
 * acts for a brand they do not administer is 403 (they take their own brands from it per agent user).
 */
export async function revokeToken(
  deps: RevocationDeps,
  caller: Caller,
  scope: string | null,
  tokenId: string,
): Promise<Schemas['AccessToken']> {
  const t = await tokenInScope(scope, tokenId);
  const managed = await agentBrandsManagedBy(caller, t.client_id);
  if (managed !== 'all') {
    if (!t.brand_ids.some((b) => managed.includes(b))) throw AppError.notFound('Access token not found');
    if (!t.brand_ids.every((b) => managed.includes(b)))
      throw AppError.forbidden(
        'This token also acts for brands you do not administer; revoke its agent user in your brands instead',
      );
  }
  const now = new Date();
  if (!t.revoked_at) await AccessTokenModel.updateOne({ _id: tokenId, client_id: t.client_id }, { revoked_at: now });
  await AgentUserModel.updateMany(
    { client_id: t.client_id, token_id: tokenId, is_active: true },
    { is_active: false, revoked_at: now },
  );
  await deps.invalidate();
  await deps.creatorGone?.({ kind: 'agent', clientId: t.client_id, tokenId, remainingBrandIds: null });
  const [token] = await withLastUse([{ ...t, revoked_at: t.revoked_at ?? now }]);
  return token;
}

/** Takes this brand away from the agent's token; the token keeps working in its other brands. */
export async function revokeAgentUser(
  deps: RevocationDeps,
  caller: Caller,
  brandId: number,
  agentUserId: string,
): Promise<Schemas['AgentUser']> {
  const agent = await agentUserIn(caller, brandId, agentUserId);
  const now = new Date();
  if (agent.is_active) {
    await AgentUserModel.updateOne(
      { _id: agent._id, client_id: agent.client_id },
      { is_active: false, revoked_at: now },
    );
    await AccessTokenModel.updateOne(
      { _id: agent.token_id, client_id: agent.client_id },
      { $pull: { brand_ids: brandId } },
    );
    await deps.invalidate();
    const { brand_ids } = await tokenOf(agent.client_id, agent.token_id);
    await deps.creatorGone?.({
      kind: 'agent',
      clientId: agent.client_id,
      tokenId: agent.token_id,
      remainingBrandIds: brand_ids,
    });
  }
  const [view] = await agentUserViews(deps.spend, agent.client_id, [
    { ...agent, is_active: false, revoked_at: agent.revoked_at ?? now },
  ]);
  return view;
}

/**
 * A new token with the same scopes, its lifetime counted from now; the old one stops at once. It keeps only
 * the brands the caller may grant (a brand admin of A never hands out a token that acts in B): in the
 * others the agent user is revoked with the old token.
 */
export async function regenerateToken(
  deps: RevocationDeps,
  caller: Caller,
  brandId: number,
  agentUserId: string,
): Promise<Schemas['AgentTokenIssued']> {
  const agent = await agentUserIn(caller, brandId, agentUserId);
  if (!agent.is_active) throw AppError.conflict('This agent was revoked in this brand');
  const old = await tokenOf(agent.client_id, agent.token_id);
  const brandIds = await grantableBrands(caller, old.client_id, old.brand_ids);
  const plaintext = newAccessToken();
  const tokenId = newId();
  const expiresAt = new Date(Date.now() + old.ttl_hours * 3_600_000);
  await storeToken(
    {
      token_id: tokenId,
      client_id: old.client_id,
      scopes: old.scopes,
      brand_ids: brandIds,
      ttl_hours: old.ttl_hours,
      owner_email: old.owner_email,
      project_name: old.project_name ?? '',
      multi_brand: old.multi_brand && brandIds.length > 1,
      fingerprint: old.fingerprint,
      request_id: old.request_id ?? '',
      ...limitValuesOf(old),
    },
    plaintext,
    expiresAt,
  );
  const now = new Date();
  await AccessTokenModel.updateOne({ _id: old._id, client_id: old.client_id }, { revoked_at: now });
  await deps.invalidate();
  const agentsOfOldToken = { client_id: old.client_id, token_id: old._id, is_active: true };
  await AgentUserModel.updateMany({ ...agentsOfOldToken, brand_id: { $in: brandIds } }, { token_id: tokenId });
  await AgentUserModel.updateMany(
    { ...agentsOfOldToken, brand_id: { $nin: brandIds } },
    { is_active: false, revoked_at: now },
  );
  await deps.creatorGone?.({
    kind: 'agent',
    clientId: old.client_id,
    tokenId: old._id,
    remainingBrandIds: brandIds,
    replacedBy: tokenId,
  });
  return {
    agent_user_id: agent._id,
    brand_id: brandId,
    token_id: tokenId,
    access_token: plaintext,
    expires_at: expiresAt.toISOString(),
  };
}

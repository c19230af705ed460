/** A token or an agent user by id, within the caller's reach, or 404. */
import { AppError } from '../lib/errors';
import { tenantQuery, type Caller } from '../lib/tenancy';
import { brandAccess } from '../brands/brand-access';
import { AccessTokenModel } from './access-token.model';
import { AgentUserModel, type AgentUserDoc } from './agent-user.model';
import type { TokenDoc } from './token-views';

/** The filter of tokens neither revoked nor expired. */
export const activeTokens = () => ({ revoked_at: null, expires_at: { $gt: new Date() } });

export async function tokenOf(clientId: string, tokenId: string): Promise<TokenDoc> {
  const t = await AccessTokenModel.findOne({ _id: tokenId, client_id: clientId }).lean<TokenDoc>();
  if (!t) throw AppError.notFound('Access token not found');
  return t;
}

/** The token, in the caller's tenant scope (any client's for a super_admin without one), or 404. */
export async function tokenInScope(scope: string | null, tokenId: string): Promise<TokenDoc> {
  const tenant = tenantQuery(scope);
  const t = await AccessTokenModel.findOne({ _id: tokenId, ...tenant.filter }, null, tenant.options).lean<TokenDoc>();
  if (!t) throw AppError.notFound('Access token not found');
  return t;
}

/** The brand's agent user, for a caller who administers the brand. */
export async function agentUserIn(caller: Caller, brandId: number, agentUserId: string): Promise<AgentUserDoc> {
  const { brand } = await brandAccess(caller, brandId, 'admin');
  const agent = await AgentUserModel.findOne({
    _id: agentUserId,
    client_id: brand.client_id,
    brand_id: brandId,
  }).lean<AgentUserDoc>();
  if (!agent) throw AppError.notFound('Agent user not found');
  return agent;
}

/**
 * Agent tokens as their client's managers read them (each with its agent users in the brands the reader manages),
 * a brand's agent users, and the calling token's own status with what its limits leave it.
 */
import type { JsonAnswer, Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { tenantQuery, type Caller } from '../lib/tenancy';
import { agentBrandsManagedBy, brandAccess } from '../brands/brand-access';
import { AccessTokenModel } from './access-token.model';
import { AgentUserModel, type AgentUserDoc } from './agent-user.model';
import type { AgentSpend } from './agent-spend';
import { limitHolders, limitValuesOf } from './agent-limits';
import type { AgentRequestLimits } from './request-limits';
import { activeTokens, tokenOf } from './token-lookup';
import { agentUserViews, toAccessToken, withLastUse, type TokenDoc } from './token-views';

/**
 * Each token's active agent users in the brands it shows (with their limits and spend this month), by token id.
 */
async function activeAgentUsersOf(spend: AgentSpend, docs: TokenDoc[]) {
  const byToken = new Map<string, Schemas['AgentUser'][]>();
  const byClient = new Map<string, TokenDoc[]>();
  for (const d of docs) byClient.set(d.client_id, [...(byClient.get(d.client_id) ?? []), d]);
  for (const [clientId, tokens] of byClient) {
    const users = await AgentUserModel.find({
      client_id: clientId,
      is_active: true,
      $or: tokens.map((t) => ({ token_id: t._id, brand_id: { $in: t.brand_ids } })),
    })
      .sort({ brand_id: 1 })
      .lean<AgentUserDoc[]>();
    for (const view of await agentUserViews(spend, clientId, users))
      byToken.set(view.token_id, [...(byToken.get(view.token_id) ?? []), view]);
  }
  return byToken;
}

/**
 * The client's tokens as the caller manages them: all of them for a super_admin and the client's triple; for
 * a dashboard user, those acting for a brand they administer, showing only those brands (the others' ids,
 * like the brands themselves, are not theirs to see).
 */
export async function listTokens(
  spend: AgentSpend,
  caller: Caller,
  scope: string | null,
  includeInactive: boolean,
  page: Page,
): Promise<JsonAnswer<'listAccessTokens', 200>> {
  const tenant = tenantQuery(scope);
  const managed = scope ? await agentBrandsManagedBy(caller, scope) : 'all';
  const filter = {
    ...tenant.filter,
    ...(includeInactive ? {} : activeTokens()),
    ...(managed === 'all' ? {} : { brand_ids: { $in: managed } }),
  };
  const sort = { created_at: -1, _id: 1 } as const;
  const { docs, total } =
    managed !== 'all' && !managed.length
      ? { docs: [], total: 0 }
      : await findPage<TokenDoc>(AccessTokenModel, { filter, sort, options: tenant.options }, page);
  const shown =
    managed === 'all' ? docs : docs.map((d) => ({ ...d, brand_ids: d.brand_ids.filter((b) => managed.includes(b)) }));
  const tokens = await withLastUse(shown);
  const agentUsers = await activeAgentUsersOf(spend, shown);
  const listed = tokens.map((t) => ({ ...t, agent_users: agentUsers.get(t.token_id) ?? [] }));
  return pageEnvelope('agents', listed, total, page);
}

/** The calling token's status; the call itself is its last use (`usedAt`), so nothing is read for it. */
export async function describeToken(
  deps: { spend: AgentSpend; requestLimits: Pick<AgentRequestLimits, 'remaining'> },
  caller: Caller,
  usedAt: Date,
): Promise<JsonAnswer<'getAccessTokenStatus', 200>> {
  if (caller.kind !== 'agent' || !caller.tokenId || !caller.clientId)
    throw AppError.forbidden('Only an agent access token has a token status');
  // The record authentication just found (its lookup cache is never stale on revocation or expiry).
  const token = (caller.accessToken as TokenDoc | undefined) ?? (await tokenOf(caller.clientId, caller.tokenId));
  const users = caller.agentUsers ?? [];
  const holders = limitHolders(caller);
  const [spend, remaining] = await Promise.all([deps.spend.views(users), deps.requestLimits.remaining(holders)]);
  const own = holders.find((h) => h.brandId === null);
  return {
    valid: true,
    token: toAccessToken(token, usedAt),
    agent_users: users.map((u) => ({
      agent_user_id: u.agentUserId,
      brand_id: u.brandId,
      rate_limit_rpm: u.rateLimitRpm,
      rate_limit_rpd: u.rateLimitRpd,
      monthly_budget_usd: u.monthlyBudgetUsd,
      spend: spend.get(u.agentUserId)!,
      remaining: remaining.get(u.agentUserId)!,
    })),
    token_limits: {
      ...limitValuesOf(token),
      in_force: own !== undefined,
      ...(own ? { remaining: remaining.get(own.subject)! } : {}),
    },
  };
}

/** A brand's agent users (the active ones unless asked), newest first. */
export async function listAgentUsers(
  spend: AgentSpend,
  caller: Caller,
  brandId: number,
  includeInactive: boolean,
  page: Page,
): Promise<JsonAnswer<'listAgentUsers', 200>> {
  const { brand } = await brandAccess(caller, brandId, 'member');
  const filter = { client_id: brand.client_id, brand_id: brandId, ...(includeInactive ? {} : { is_active: true }) };
  const { docs, total } = await findPage<AgentUserDoc>(
    AgentUserModel,
    { filter, sort: { created_at: -1, _id: 1 } },
    page,
  );
  return pageEnvelope('agent_users', await agentUserViews(spend, brand.client_id, docs), total, page);
}

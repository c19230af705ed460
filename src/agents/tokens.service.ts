import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { orNull } from '../lib/api-views';
import { iso, newId } from '../lib/ids';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { tenantQuery, type Caller } from '../lib/tenancy';
import { AccessTokenModel, lastUsedOf } from './access-token.model';
import { agentBrandsManagedBy, brandAccess, grantableBrands } from '../brands/brand-access';
import { AgentUserModel, type AgentUserDoc } from './agent-user.model';
import { storeToken } from './issue-token';
import type { AgentSpend, AgentSpendView } from './agent-spend';
import { newAccessToken } from './token-format';
import type { CreatorGone } from '../watches/watch-creators';
import { changedLimits, limitHolders, limitValuesOf, type LimitChanges } from './agent-limits';
import type { AgentRequestLimits } from './request-limits';

/** A scope an agent may be granted, as the contract lists them (records hold them as validated when requested). */
export type AccessScope = Schemas['AccessToken']['scopes'][number];

interface TokenDoc {
  _id: string;
  client_id: string;
  token_prefix: string;
  project_name: string | null;
  owner_email: string | null;
  scopes: AccessScope[];
  multi_brand: boolean;
  brand_ids: number[];
  fingerprint: Record<string, unknown>;
  request_id: string | null;
  ttl_hours: number;
  rate_limit_rpm?: number | null;
  rate_limit_rpd?: number | null;
  monthly_budget_usd?: number | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const statusOf = (t: TokenDoc) => (t.revoked_at ? 'revoked' : t.expires_at <= new Date() ? 'expired' : 'active');

export function toAccessToken(t: TokenDoc, lastUsed: Date | null): Schemas['AccessToken'] {
  return {
    token_id: t._id,
    client_id: t.client_id,
    token_prefix: t.token_prefix,
    project_name: t.project_name ?? '',
    owner_email: t.owner_email ?? null,
    scopes: t.scopes,
    multi_brand: t.multi_brand ?? false,
    brand_ids: t.brand_ids,
    fingerprint: t.fingerprint ?? {},
    ...limitValuesOf(t),
    status: statusOf(t),
    created_at: iso(t.created_at),
    expires_at: iso(t.expires_at),
    last_used_at: iso(lastUsed),
    revoked_at: iso(t.revoked_at),
  };
}

function toAgentUser(a: AgentUserDoc, lastUsed: Date | null, spend: AgentSpendView): Schemas['AgentUser'] {
  const { brand_id, token_id, project_name, scopes, allowed_models, is_active } = a;
  return {
    agent_user_id: a._id,
    brand_id,
    token_id,
    ...orNull(a, 'name', 'description', 'photo'),
    project_name,
    owner_email: a.owner_email ?? null,
    scopes: scopes as AccessScope[],
    ...orNull(a, 'monthly_budget_usd', 'rate_limit_rpm', 'rate_limit_rpd'),
    allowed_models,
    spend,
    is_active,
    created_at: iso(a.created_at),
    last_used_at: iso(lastUsed),
    revoked_at: iso(a.revoked_at),
  };
}

/** Agent tokens as their client and brands manage them: list, describe, revoke, and per-brand agent users. */
export function createTokens(deps: {
  invalidate: () => Promise<void>;
  spend: AgentSpend;
  /** A token revoked, or no longer acting for a brand, pauses the watches it created for it (src/watches). */
  creatorGone?: (gone: CreatorGone) => Promise<void>;
  requestLimits: Pick<AgentRequestLimits, 'remaining'>;
}) {
  const active = () => ({ revoked_at: null, expires_at: { $gt: new Date() } });

  async function tokenOf(clientId: string, tokenId: string): Promise<TokenDoc> {
    const t = await AccessTokenModel.findOne({ _id: tokenId, client_id: clientId }).lean<TokenDoc>();
    if (!t) throw AppError.notFound('Access token not found');
    return t;
  }

  /** The token, in the caller's tenant scope (any client's for a super_admin without one), or 404. */
  async function tokenInScope(scope: string | null, tokenId: string): Promise<TokenDoc> {
    const tenant = tenantQuery(scope);
    const t = await AccessTokenModel.findOne({ _id: tokenId, ...tenant.filter }, null, tenant.options).lean<TokenDoc>();
    if (!t) throw AppError.notFound('Access token not found');
    return t;
  }

  async function agentUserIn(caller: Caller, brandId: number, agentUserId: string) {
    const { brand } = await brandAccess(caller, brandId, 'admin');
    const agent = await AgentUserModel.findOne({
      _id: agentUserId,
      client_id: brand.client_id,
      brand_id: brandId,
    }).lean<AgentUserDoc>();
    if (!agent) throw AppError.notFound('Agent user not found');
    return agent;
  }

  /** Each agent user as the API shows it: with its token's last use and its spend this month. */
  async function agentUserViews(clientId: string, docs: AgentUserDoc[]) {
    const lastUsed = await lastUsedOf(
      clientId,
      docs.map((d) => d.token_id),
    );
    const spend = await deps.spend.views(
      docs.map((d) => ({ agentUserId: d._id, monthlyBudgetUsd: d.monthly_budget_usd ?? null })),
    );
    return docs.map((d) => toAgentUser(d, lastUsed.get(d.token_id) ?? null, spend.get(d._id)!));
  }

  /**
   * Each token's active agent users in the brands it shows (with their limits and spend this month), by token id.
   */
  async function activeAgentUsersOf(docs: TokenDoc[]) {
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
      for (const view of await agentUserViews(clientId, users))
        byToken.set(view.token_id, [...(byToken.get(view.token_id) ?? []), view]);
    }
    return byToken;
  }

  /** Tokens with their last use (kept apart from the token documents). */
  async function withLastUse(docs: TokenDoc[]) {
    const byClient = new Map<string, string[]>();
    for (const d of docs) byClient.set(d.client_id, [...(byClient.get(d.client_id) ?? []), d._id]);
    const used = new Map<string, Date>();
    for (const [clientId, ids] of byClient) for (const [id, at] of await lastUsedOf(clientId, ids)) used.set(id, at);
    return docs.map((d) => toAccessToken(d, used.get(d._id) ?? null));
  }

  return {
    /**
     * The client's tokens as the caller manages them: all of them for a super_admin and the client's triple; for
     * a dashboard user, those acting for a brand they administer, showing only those brands (the others' ids,
     * like the brands themselves, are not theirs to see).
     */
    async list(caller: Caller, scope: string | null, includeInactive: boolean, page: Page) {
      const tenant = tenantQuery(scope);
      const managed = scope ? await agentBrandsManagedBy(caller, scope) : 'all';
      const filter = {
        ...tenant.filter,
        ...(includeInactive ? {} : active()),
        ...(managed === 'all' ? {} : { brand_ids: { $in: managed } }),
      };
      const sort = { created_at: -1, _id: 1 } as const;
      const { docs, total } =
        managed !== 'all' && !managed.length
          ? { docs: [], total: 0 }
          : await findPage<TokenDoc>(AccessTokenModel, { filter, sort, options: tenant.options }, page);
      const shown =
        managed === 'all'
          ? docs
          : docs.map((d) => ({ ...d, brand_ids: d.brand_ids.filter((b) => managed.includes(b)) }));
      const tokens = await withLastUse(shown);
      const agentUsers = await activeAgentUsersOf(shown);
      const listed = tokens.map((t) => ({ ...t, agent_users: agentUsers.get(t.token_id) ?? [] }));
      return pageEnvelope('agents', listed, total, page);
    },

    /** The calling token's status; the call itself is its last use (`usedAt`), so nothing is read for it. */
    async describe(caller: Caller, usedAt: Date) {
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
    },

    /**
     * Revokes a token in every brand; authentication sees it on the next request, on every process. A dashboard
     * user revokes only a token that acts for no brand but theirs: a token they do not see is 404, one that also
     * acts for a brand they do not administer is 403 (they take their own brands from it per agent user).
     */
    async revoke(caller: Caller, scope: string | null, tokenId: string) {
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
      if (!t.revoked_at)
        await AccessTokenModel.updateOne({ _id: tokenId, client_id: t.client_id }, { revoked_at: now });
      await AgentUserModel.updateMany(
        { client_id: t.client_id, token_id: tokenId, is_active: true },
        { is_active: false, revoked_at: now },
      );
      await deps.invalidate();
      await deps.creatorGone?.({ kind: 'agent', clientId: t.client_id, tokenId, remainingBrandIds: null });
      const [token] = await withLastUse([{ ...t, revoked_at: t.revoked_at ?? now }]);
      return token;
    },

    async agentUsers(caller: Caller, brandId: number, includeInactive: boolean, page: Page) {
      const { brand } = await brandAccess(caller, brandId, 'member');
      const filter = { client_id: brand.client_id, brand_id: brandId, ...(includeInactive ? {} : { is_active: true }) };
      const { docs, total } = await findPage<AgentUserDoc>(
        AgentUserModel,
        { filter, sort: { created_at: -1, _id: 1 } },
        page,
      );
      return pageEnvelope('agent_users', await agentUserViews(brand.client_id, docs), total, page);
    },

    /** Takes this brand away from the agent's token; the token keeps working in its other brands. */
    async revokeAgentUser(caller: Caller, brandId: number, agentUserId: string) {
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
      const [view] = await agentUserViews(agent.client_id, [
        { ...agent, is_active: false, revoked_at: agent.revoked_at ?? now },
      ]);
      return view;
    },

    /**
     * A new token with the same scopes, its lifetime counted from now; the old one stops at once. It keeps only
     * the brands the caller may grant (a brand admin of A never hands out a token that acts in B): in the
     * others the agent user is revoked with the old token.
     */
    async regenerate(caller: Caller, brandId: number, agentUserId: string) {
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
    },

    /** Changes an agent's limits in this brand; every API process holds it to them from its next request. */
    async updateAgentUserLimits(caller: Caller, brandId: number, agentUserId: string, changes: LimitChanges) {
      const agent = await agentUserIn(caller, brandId, agentUserId);
      if (!agent.is_active) throw AppError.conflict('This agent was revoked in this brand');
      const limits = changedLimits(limitValuesOf(agent), changes);
      await AgentUserModel.updateOne({ _id: agent._id, client_id: agent.client_id }, limits);
      await deps.invalidate();
      const [view] = await agentUserViews(agent.client_id, [{ ...agent, ...limits }]);
      return view;
    },

    /**
     * Changes the limits of a token that acts for no brand, which it is held to (one with brands is held to its
     * agent users' limits, each changed in its brand). Its client's administrators: the credential triple, its
     * brand_admin users, a super_admin.
     */
    async updateTokenLimits(caller: Caller, scope: string | null, tokenId: string, changes: LimitChanges) {
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
    },
  };
}

export type Tokens = ReturnType<typeof createTokens>;

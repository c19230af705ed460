/** Agent tokens and agent users as the API shows them: with their last use and, for agent users, their spend. */
import type { Schemas } from '../lib/contract-types';
import { orNull } from '../lib/api-views';
import { iso } from '../lib/ids';
import { lastUsedOf } from './access-token.model';
import type { AgentUserDoc } from './agent-user.model';
import type { AgentSpend, AgentSpendView } from './agent-spend';
import { limitValuesOf } from './agent-limits';

/** A scope an agent may be granted, as the contract lists them (records hold them as validated when requested). */
export type AccessScope = Schemas['AccessToken']['scopes'][number];

export interface TokenDoc {
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

export const statusOf = (t: TokenDoc) => (t.revoked_at ? 'revoked' : t.expires_at <= new Date() ? 'expired' : 'active');

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

/** Each agent user as the API shows it: with its token's last use and its spend this month. */
export async function agentUserViews(
  spend: AgentSpend,
  clientId: string,
  docs: AgentUserDoc[],
): Promise<Schemas['AgentUser'][]> {
  const lastUsed = await lastUsedOf(
    clientId,
    docs.map((d) => d.token_id),
  );
  const spent = await spend.views(
    docs.map((d) => ({ agentUserId: d._id, monthlyBudgetUsd: d.monthly_budget_usd ?? null })),
  );
  return docs.map((d) => toAgentUser(d, lastUsed.get(d.token_id) ?? null, spent.get(d._id)!));
}

/** Tokens with their last use (kept apart from the token documents). */
export async function withLastUse(docs: TokenDoc[]): Promise<Schemas['AccessToken'][]> {
  const byClient = new Map<string, string[]>();
  for (const d of docs) byClient.set(d.client_id, [...(byClient.get(d.client_id) ?? []), d._id]);
  const used = new Map<string, Date>();
  for (const [clientId, ids] of byClient) for (const [id, at] of await lastUsedOf(clientId, ids)) used.set(id, at);
  return docs.map((d) => toAccessToken(d, used.get(d._id) ?? null));
}

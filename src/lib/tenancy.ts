import type { AnyRequest } from './http/operations';
import type { Aggregate, Query, Schema } from 'mongoose';
import { AppError } from './errors';

export const ROLES = ['super_admin', 'brand_admin', 'client_user'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: a dashboard user (session), a client (credential triple) or an agent (access token). */
export interface Caller {
  kind: 'user' | 'client' | 'agent';
  role: Role;
  /** The caller's own tenant; null only for a super_admin without one. */
  clientId: string | null;
  userId: string | null;
  email: string | null;
  permissions: string[];
  /** Access-token scopes; null for users and clients, which are not scope-limited. */
  scopes: string[] | null;
  brandIds: number[];
  tokenId?: string;
  /** An agent's token record as authentication found it (its status answers from this, without another read). */
  accessToken?: unknown;
  /** An agent's active presences in its brands (agent users), with the limits each was granted. */
  agentUsers?: AgentUserLimits[];
  sessionId?: string;
  /**
   * Which credential made the call, never the secret itself: `session:<id>`, `token:<id>`, or for a credential
   * triple its client and the stored hash of its API key (a rotation makes a new one). What retries are scoped to.
   */
  credentialId?: string;
}

/** An agent user's limits as its access request set them (null: no limit). */
export interface AgentUserLimits {
  agentUserId: string;
  brandId: number;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
  monthlyBudgetUsd: number | null;
}

/** Why a credential that authenticated a request no longer does (the last event of a stream it opened). */
export const REVOCATION_REASONS = [
  'session_ended',
  'token_revoked',
  'expired',
  'user_deactivated',
  'client_deactivated',
  'credentials_regenerated',
  'access_changed',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/**
 * The credential a request was authenticated with, asked again (a long-lived answer such as an event stream
 * outlives the moment it was checked): null while it still grants the operation to the same tenant, else why
 * not. `key` is the same for every request made with the credential, so one answer serves all of them.
 */
export interface CredentialCheck {
  key: string;
  recheck(): Promise<RevocationReason | null>;
}

export const SELECTED_CLIENT_HEADER = 'x-selected-client-id';

export function callerOf(req: AnyRequest): Caller {
  if (!req.caller) throw AppError.unauthorized();
  return req.caller;
}

/**
 * The tenant a request acts on. A super_admin picks one with X-Selected-Client-Id, or sees every
 * tenant (null) where the operation allows it; everybody else always acts on their own client and
 * cannot choose another.
 */
export function tenantScope(req: AnyRequest): string | null {
  const caller = callerOf(req);
  if (caller.role === 'super_admin') {
    const selected = req.get(SELECTED_CLIENT_HEADER);
    return selected || caller.clientId;
  }
  if (!caller.clientId) throw AppError.forbidden('This account belongs to no client');
  return caller.clientId;
}

/** The one tenant an operation must act on (writes, single reads); a super_admin must choose it. */
export function requireTenant(req: AnyRequest): string {
  const tenant = tenantScope(req);
  if (!tenant) {
    throw AppError.invalid('Choose a client with the X-Selected-Client-Id header', [
      { location: 'header', field: 'X-Selected-Client-Id', message: 'required for a super_admin' },
    ]);
  }
  return tenant;
}

/**
 * The filter and query options of a read over one tenant, or over every tenant (`null`: a super_admin's view of
 * all clients, which the tenant guard below must be told is deliberate).
 */
export function tenantQuery(scope: string | null): { filter: { client_id?: string }; options: { allTenants?: true } } {
  return scope ? { filter: { client_id: scope }, options: {} } : { filter: {}, options: { allTenants: true } };
}

/** The query operations whose filter must name a tenant. */
const GUARDED_OPERATIONS = [
  'find',
  'findOne',
  'countDocuments',
  'distinct',
  'updateOne',
  'updateMany',
  'deleteOne',
  'deleteMany',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'replaceOne',
];
const GUARDED_QUERIES = new RegExp(`^(${GUARDED_OPERATIONS.join('|')})$`);

/**
 * Makes a tenant-owned schema refuse any query whose filter lacks client_id, so no code path can
 * read or write tenant data without naming a tenant. A deliberate cross-tenant query (a super_admin's
 * "all clients" view, a system job) must say so with the query option `{ allTenants: true }`.
 */
export function tenantOwned(schema: Schema): void {
  // `op` (the operation's name) is set on every query at run time; mongoose's types leave it out.
  schema.pre(GUARDED_QUERIES, function guard(this: Query<unknown, unknown> & { op?: string }) {
    if (this.getOptions().allTenants) return;
    if (!('client_id' in this.getFilter())) {
      throw new Error(`tenant filter missing on ${this.model.modelName}.${this.op}`);
    }
  });
  schema.pre('aggregate', function guard(this: Aggregate<unknown>) {
    if (this.options?.allTenants) return;
    const first = this.pipeline()[0];
    const match = first && '$match' in first ? first.$match : undefined;
    if (!match || !('client_id' in match)) {
      throw new Error(`tenant filter missing on ${this.model()?.modelName}.aggregate`);
    }
  });
}

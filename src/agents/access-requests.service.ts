import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import { withinDeadline } from '../lib/engines/temporal';
import { randomToken, safeEqual, sha256, SecretBox } from '../lib/crypto';
import { AppError } from '../lib/errors';
import { iso, newId } from '../lib/ids';
import { claimOnce } from '../lib/claims';
import { ClientModel } from '../clients/client.model';
import { UserModel } from '../users/user.model';
import {
  ACCESS_REQUEST_WORKFLOW, accessRequestWorkflowId, decideUpdate, type AccessRequestInput, type Verdict,
} from '../../workflows/access-request-api';
import { AccessRequestModel, type AccessRequestDoc } from './access-request.model';
import { approvalEmail } from './approval-views';
import { failureOfUpdate } from './update-failures';

export const POLL_INTERVAL_SECONDS = 3;

export interface AccessRequestsDeps {
  temporal: Client;
  taskQueue: string;
  redis: Redis;
  credentialsKey: string;
  publicBaseUrl: () => string;
  ttlSeconds: number;
  ratePerHour: number;
}

export interface RequestInput {
  owner_email?: string;
  project_name: string;
  requested_scopes: string[];
  ttl_hours?: number;
  fingerprint?: Record<string, unknown>;
  multi_brand?: boolean;
}

const PROFILE_FIELDS = ['name', 'description', 'photo', 'monthly_budget_usd', 'rate_limit_rpm', 'rate_limit_rpd', 'allowed_models'] as const;

export function createAccessRequests(deps: AccessRequestsDeps) {
  const box = new SecretBox(deps.credentialsKey);

  /** At most ratePerHour requests per source address in each UTC hour (0: no limit). */
  async function limitRate(ip: string) {
    if (!deps.ratePerHour) return;
    const key = `access-requests:${ip}:${Math.floor(Date.now() / 3_600_000)}`;
    const [[, count]] = (await deps.redis.multi().incr(key).expire(key, 3600).exec()) as [[null, number]];
    if (count > deps.ratePerHour) throw new AppError(429, `At most ${deps.ratePerHour} access requests per hour from one address`);
  }

  /** Where the approval e-mail goes: the client's admin_email and its active brand_admin users (DECISIONS.md §6). */
  async function recipients(clientId: string, adminEmail: string): Promise<string[]> {
    const admins = await UserModel.find({ client_id: clientId, role: 'brand_admin', is_active: true }, { email: 1 }).lean<{ email: string }[]>();
    return [...new Set([adminEmail, ...admins.map((a) => a.email)].map((e) => e.toLowerCase()))];
  }

  async function open(client: { _id: string; name: string } | null, to: string[], input: RequestInput, profile: Record<string, unknown>) {
    const requestId = newId();
    const pollToken = randomToken('apt_', 24);
    const approvalToken = randomToken('aat_', 24);
    const expiresAt = new Date(Date.now() + deps.ttlSeconds * 1000);
    const doc = (await AccessRequestModel.create({
      _id: requestId, client_id: client?._id ?? null, owner_email: input.owner_email ?? null, project_name: input.project_name,
      requested_scopes: input.requested_scopes, ttl_hours: input.ttl_hours ?? 72, multi_brand: input.multi_brand ?? false,
      fingerprint: { agent_type: 'unknown', ...input.fingerprint }, profile, expires_at: expiresAt,
      poll_token_hash: sha256(pollToken), approval_token_hash: sha256(approvalToken),
    })).toObject() as AccessRequestDoc;
    const link = (verdict: string) =>
      `${deps.publicBaseUrl()}/api/v1/auth/pat/request/${requestId}/${verdict}?approval_token=${encodeURIComponent(approvalToken)}`;
    const message = client ? approvalEmail({ request: doc, clientName: client.name, approveUrl: link('approve'), denyUrl: link('deny') }) : null;
    const input_: AccessRequestInput = {
      request_id: requestId, ttl_ms: deps.ttlSeconds * 1000,
      emails: message ? to.map((address) => ({ channel: 'email' as const, to: address, ...message })) : [],
    };
    await withinDeadline(deps.temporal, () => deps.temporal.workflow.start(ACCESS_REQUEST_WORKFLOW, {
      taskQueue: deps.taskQueue, workflowId: accessRequestWorkflowId(requestId), args: [input_],
    }));
    return {
      request_id: requestId, status: 'pending' as const, poll_token: pollToken,
      poll_url: `/api/v1/auth/pat/request/${requestId}/status?poll_token=${encodeURIComponent(pollToken)}`,
      poll_interval_seconds: POLL_INTERVAL_SECONDS, expires_at: expiresAt.toISOString(),
    };
  }

  async function findWithSecret(requestId: string, field: 'poll_token_hash' | 'approval_token_hash', secret: string, name: string) {
    const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
    if (!doc) throw AppError.notFound('Access request not found');
    if (!safeEqual(doc[field], sha256(secret))) throw AppError.unauthorized(`Wrong ${name}`);
    return doc;
  }

  /** A pending request past its deadline reads as expired even before the workflow has marked it. */
  const stateOf = (doc: AccessRequestDoc) => (doc.status === 'pending' && doc.expires_at <= new Date() ? 'expired' : doc.status);

  return {
    async request(input: RequestInput & { client_id: string }, ip: string) {
      await limitRate(ip);
      const client = await ClientModel.findOne({ _id: input.client_id, is_active: true }).lean<{ _id: string; name: string; admin_email: string }>();
      if (!client) throw AppError.notFound('No active client with this id');
      return open(client, await recipients(client._id, client.admin_email), input, {});
    },

    /** The same answer whether or not the address belongs to a client, so addresses cannot be probed. */
    async requestByEmail(input: RequestInput & { email: string } & Record<string, unknown>, ip: string) {
      await limitRate(ip);
      const email = input.email.toLowerCase();
      let client = await ClientModel.findOne({ admin_email: email, is_active: true }).lean<{ _id: string; name: string }>();
      if (!client) {
        const admin = await UserModel.findOne({ email, role: 'brand_admin', is_active: true }).lean<{ client_id: string | null }>();
        client = admin?.client_id ? await ClientModel.findOne({ _id: admin.client_id, is_active: true }).lean<{ _id: string; name: string }>() : null;
      }
      const profile = Object.fromEntries(PROFILE_FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, input[f]]));
      return open(client, [email], { ...input, owner_email: input.owner_email ?? email }, profile);
    },

    async status(requestId: string, pollToken: string) {
      const doc = await findWithSecret(requestId, 'poll_token_hash', pollToken, 'poll_token');
      // RFC 8628's slow_down: more than one poll a second is refused, with the interval to keep.
      const fresh = await deps.redis.set(`access-request-poll:${requestId}`, '1', 'PX', 1000, 'NX').catch(() => 'OK');
      if (fresh !== 'OK') throw new AppError(429, 'slow_down', { interval: POLL_INTERVAL_SECONDS });
      let accessToken: string | null = null;
      if (doc.status === 'approved' && doc.token_sealed && (await claimOnce(`access-token-pickup:${requestId}`))) {
        accessToken = box.decrypt(doc.token_sealed);
        await AccessRequestModel.updateOne({ _id: requestId }, { token_sealed: null });
      }
      return {
        request_id: doc._id, status: stateOf(doc), project_name: doc.project_name, requested_scopes: doc.requested_scopes,
        ttl_hours: doc.ttl_hours, multi_brand: doc.multi_brand, created_at: iso(doc.created_at), expires_at: iso(doc.expires_at),
        decided_at: iso(doc.decided_at), poll_interval_seconds: POLL_INTERVAL_SECONDS, access_token: accessToken,
        token_id: doc.token_id ?? null, token_expires_at: iso(doc.token_expires_at), brand_ids: doc.brand_ids,
      };
    },

    /** Delivers the decision to the workflow and reports the decision it actually took. */
    async decide(requestId: string, approvalToken: string, verdict: Verdict) {
      const doc = await findWithSecret(requestId, 'approval_token_hash', approvalToken, 'approval_token');
      const state = stateOf(doc);
      if (state === 'expired') throw new AppError(410, 'Access request has expired');
      if (state !== 'pending') throw AppError.conflict(`Access request already ${state}`);
      try {
        const handle = deps.temporal.workflow.getHandle(accessRequestWorkflowId(requestId));
        const decision = await withinDeadline(deps.temporal, () => handle.executeUpdate(decideUpdate, { args: [verdict] }));
        return { decision, scopes: doc.requested_scopes };
      } catch (err) {
        throw await failureOfUpdate(err, async () => stateOf((await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>())!));
      }
    },
  };
}

export type AccessRequests = ReturnType<typeof createAccessRequests>;

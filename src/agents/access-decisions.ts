import { ApplicationFailure } from '@temporalio/common';
import { SecretBox } from '../lib/crypto';
import { isDuplicateKeyError } from '../lib/errors';
import { iso } from '../lib/ids';
import { administeredBrands } from '../brands/brand-access';
import { brandDirectory } from '../brands/brand-directory';
import { userDirectory } from '../users/user-directory';
import {
  INVALID_DECISION,
  isDecision,
  limitChangeErrors,
  type AccessDecisionResult,
  type AgentLimitValues,
  type Approver,
  type LimitChanges,
  type Verdict,
} from '../../workflows/access-request-api';
import { AccessRequestModel, type AccessRequestDoc } from './access-request.model';
import { changedLimits, limitValuesOf, offeredLimits } from './agent-limits';
import { AgentUserModel } from './agent-user.model';
import { storeToken } from './issue-token';
import { newAccessToken } from './token-format';

const result = (doc: AccessRequestDoc): AccessDecisionResult => ({
  request_id: doc._id,
  status: doc.status as Verdict,
  decided_at: iso(doc.decided_at)!,
  token_id: doc.token_id ?? null,
  brand_ids: doc.brand_ids,
  token_expires_at: iso(doc.token_expires_at),
  ...(doc.status === 'approved' && doc.limits ? { limits: limitValuesOf(doc.limits as AgentLimitValues) } : {}),
});

/** The approver of a request made before approvers were recorded (its single link): the client's administrator. */
export const CLIENT_ADMIN: Approver = { email: null, role: 'client_admin', user_id: null };

export type BrandGrant = { brand_ids: number[] } | { refused: string };

/**
 * The brands an approval by `approver` grants: for the client's administrator its oldest active brand, or all
 * its active brands for multi_brand; for a brand_admin the oldest active brand they administer, and never a
 * multi_brand request (that needs the client's administrator). Or why this approver cannot approve.
 */
export async function brandsToGrant(
  request: Pick<AccessRequestDoc, 'client_id' | 'multi_brand'>,
  approver: Approver,
): Promise<BrandGrant> {
  const clientId = request.client_id!;
  const active = await brandDirectory.activeBrandIds(clientId);
  if (approver.role === 'client_admin') return { brand_ids: request.multi_brand ? active : active.slice(0, 1) };
  if (request.multi_brand) return { refused: "A multi-brand request needs the client's administrator" };
  if (!(await userDirectory.isActiveBrandAdmin(approver.user_id!, clientId)))
    return { refused: 'The administrator this link was sent to can no longer decide' };
  const own = await administeredBrands(clientId, approver.user_id!);
  const granted = active.filter((id) => own.includes(id));
  return granted.length
    ? { brand_ids: granted.slice(0, 1) }
    : { refused: 'You administer no active brand of this client' };
}

/**
 * The side effects of a decision, run by the approval workflow's activity. Idempotent: a retry after
 * a partial write finishes the same decision with the same token (its id comes from the workflow and
 * its plaintext stays sealed on the request until the agent's first poll takes it).
 */
export function createAccessDecisions(deps: { credentialsKey: string }) {
  const box = new SecretBox(deps.credentialsKey);

  async function approve(
    doc: AccessRequestDoc,
    tokenId: string,
    approver: Approver,
    changes: LimitChanges | undefined,
  ): Promise<AccessRequestDoc> {
    const clientId = doc.client_id!;
    const plaintext = doc.token_sealed ? box.decrypt(doc.token_sealed) : newAccessToken();
    const decidedAt = doc.decided_at ?? new Date();
    const expiresAt = doc.token_expires_at ?? new Date(decidedAt.getTime() + doc.ttl_hours * 3_600_000);
    // A grant the API allowed moments ago that no longer holds (the approver lost the brand) grants no brand.
    const grant = doc.token_id ? { brand_ids: doc.brand_ids } : await brandsToGrant(doc, approver);
    const brandIds = 'brand_ids' in grant ? grant.brand_ids : [];
    const id = doc.token_id ?? tokenId;
    const limits = doc.limits
      ? limitValuesOf(doc.limits as AgentLimitValues)
      : changedLimits((await offeredLimits(doc, brandIds)).offered, changes);
    await AccessRequestModel.updateOne(
      { _id: doc._id },
      {
        status: 'approved',
        decided_at: decidedAt,
        decided_by: doc.decided_by ?? approver.email,
        token_id: id,
        token_expires_at: expiresAt,
        brand_ids: brandIds,
        limits,
        token_sealed: doc.token_sealed ?? box.encrypt(plaintext),
      },
    );
    await storeToken(
      {
        token_id: id,
        client_id: clientId,
        scopes: doc.requested_scopes,
        brand_ids: brandIds,
        ttl_hours: doc.ttl_hours,
        owner_email: doc.owner_email ?? null,
        project_name: doc.project_name,
        multi_brand: doc.multi_brand,
        fingerprint: (doc.fingerprint ?? {}) as Record<string, unknown>,
        request_id: doc._id,
        ...limits,
      },
      plaintext,
      expiresAt,
    );
    const profile = (doc.profile ?? {}) as Record<string, unknown>;
    for (const brandId of brandIds) {
      try {
        await AgentUserModel.create({
          client_id: clientId,
          brand_id: brandId,
          token_id: id,
          request_id: doc._id,
          project_name: doc.project_name,
          owner_email: doc.owner_email,
          scopes: doc.requested_scopes,
          ...profile,
          ...limits,
        });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err; // made by an earlier attempt
      }
    }
    return (await AccessRequestModel.findById(doc._id).lean<AccessRequestDoc>())!;
  }

  return {
    async decide(
      requestId: string,
      verdict: Verdict,
      tokenId: string,
      approver: Approver,
      limits?: LimitChanges,
    ): Promise<AccessDecisionResult> {
      // The workflow's validator refuses an Update without one; nothing decides as someone unnamed, or past bounds.
      if (!isDecision(verdict, approver) || limitChangeErrors(limits).length)
        throw ApplicationFailure.nonRetryable(
          `access request ${requestId}: no valid approver, or limits out of bounds`,
          INVALID_DECISION,
        );
      const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
      if (!doc) throw new Error(`access request ${requestId} not found`);
      if (verdict === 'denied') {
        if (doc.status !== 'denied')
          await AccessRequestModel.updateOne(
            { _id: requestId },
            { status: 'denied', decided_at: new Date(), decided_by: approver.email },
          );
        return result((await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>())!);
      }
      if (!doc.client_id) throw new Error(`access request ${requestId} names no client`);
      return result(await approve(doc, tokenId, approver, limits));
    },

    async expire(requestId: string): Promise<void> {
      await AccessRequestModel.updateOne({ _id: requestId, status: 'pending' }, { status: 'expired' });
    },
  };
}

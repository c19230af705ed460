import { SecretBox } from '../lib/crypto';
import { isDuplicateKeyError } from '../lib/errors';
import { iso } from '../lib/ids';
import { BrandModel } from '../brands/brand.model';
import type { AccessDecisionResult, Verdict } from '../../workflows/access-request-api';
import { AccessRequestModel, type AccessRequestDoc } from './access-request.model';
import { AgentUserModel } from './agent-user.model';
import { storeToken } from './issue-token';
import { newAccessToken } from './token-format';

const result = (doc: AccessRequestDoc): AccessDecisionResult => ({
  request_id: doc._id, status: doc.status as Verdict, decided_at: iso(doc.decided_at)!, token_id: doc.token_id ?? null,
  brand_ids: doc.brand_ids, token_expires_at: iso(doc.token_expires_at),
});

/** The brands an approval grants: the client's oldest active brand, or all its active brands for multi_brand. */
async function grantedBrands(clientId: string, multiBrand: boolean): Promise<number[]> {
  const brands = await BrandModel.find({ client_id: clientId, is_active: true }, { _id: 1 }).sort({ _id: 1 }).lean<{ _id: number }[]>();
  return (multiBrand ? brands : brands.slice(0, 1)).map((b) => b._id);
}

/**
 * The side effects of a decision, run by the approval workflow's activity. Idempotent: a retry after
 * a partial write finishes the same decision with the same token (its id comes from the workflow and
 * its plaintext stays sealed on the request until the agent's first poll takes it).
 */
export function createAccessDecisions(deps: { credentialsKey: string }) {
  const box = new SecretBox(deps.credentialsKey);

  async function approve(doc: AccessRequestDoc, tokenId: string): Promise<AccessRequestDoc> {
    const clientId = doc.client_id!;
    const plaintext = doc.token_sealed ? box.decrypt(doc.token_sealed) : newAccessToken();
    const decidedAt = doc.decided_at ?? new Date();
    const expiresAt = doc.token_expires_at ?? new Date(decidedAt.getTime() + doc.ttl_hours * 3_600_000);
    const brandIds = doc.token_id ? doc.brand_ids : await grantedBrands(clientId, doc.multi_brand);
    const id = doc.token_id ?? tokenId;
    await AccessRequestModel.updateOne({ _id: doc._id }, {
      status: 'approved', decided_at: decidedAt, token_id: id, token_expires_at: expiresAt, brand_ids: brandIds,
      token_sealed: doc.token_sealed ?? box.encrypt(plaintext),
    });
    await storeToken({
      token_id: id, client_id: clientId, scopes: doc.requested_scopes, brand_ids: brandIds, ttl_hours: doc.ttl_hours,
      owner_email: doc.owner_email ?? null, project_name: doc.project_name, multi_brand: doc.multi_brand,
      fingerprint: (doc.fingerprint ?? {}) as Record<string, unknown>, request_id: doc._id,
    }, plaintext, expiresAt);
    const profile = (doc.profile ?? {}) as Record<string, unknown>;
    for (const brandId of brandIds) {
      try {
        await AgentUserModel.create({
          client_id: clientId, brand_id: brandId, token_id: id, request_id: doc._id, project_name: doc.project_name,
          owner_email: doc.owner_email, scopes: doc.requested_scopes, ...profile,
        });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err; // made by an earlier attempt
      }
    }
    return (await AccessRequestModel.findById(doc._id).lean<AccessRequestDoc>())!;
  }

  return {
    async decide(requestId: string, verdict: Verdict, tokenId: string): Promise<AccessDecisionResult> {
      const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
      if (!doc) throw new Error(`access request ${requestId} not found`);
      if (verdict === 'denied') {
        if (doc.status !== 'denied') await AccessRequestModel.updateOne({ _id: requestId }, { status: 'denied', decided_at: new Date() });
        return result((await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>())!);
      }
      if (!doc.client_id) throw new Error(`access request ${requestId} names no client`);
      return result(await approve(doc, tokenId));
    },

    async expire(requestId: string): Promise<void> {
      await AccessRequestModel.updateOne({ _id: requestId, status: 'pending' }, { status: 'expired' });
    },
  };
}

/**
 * The agent's poll for its request's outcome, with the poll token it was given: no sooner than the interval
 * (RFC 8628's slow_down), and the issued token handed over once, on the first poll after approval.
 */
import { safeEqual, sha256, type SecretBox } from '../lib/crypto';
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { iso } from '../lib/ids';
import { claimOnce } from '../lib/claims';
import type { minimumSpacing } from '../lib/rate-limit';
import { AccessRequestModel, stateOf, type AccessRequestDoc } from './access-request.model';
import type { AccessScope } from './token-views';

/** The interface's "polled every 3 seconds while waiting": the interval a status poll names and keeps to. */
export const POLL_INTERVAL_SECONDS = 3;

export interface PollDeps {
  /** Unseals the issued token. */
  box: SecretBox;
  /** A poll within the interval of the last one answered is refused. */
  pollSpacing: Pick<ReturnType<typeof minimumSpacing>, 'allows'>;
}

async function withPollToken(requestId: string, pollToken: string) {
  const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
  if (!doc) throw AppError.notFound('Access request not found');
  if (!safeEqual(doc.poll_token_hash, sha256(pollToken))) throw AppError.unauthorized('Wrong poll_token');
  return doc;
}

export async function pollStatus(
  deps: PollDeps,
  requestId: string,
  pollToken: string,
): Promise<Schemas['AccessRequest']> {
  const doc = await withPollToken(requestId, pollToken);
  // Redis unavailable: the poll is answered (the token's pickup is a one-time claim either way).
  if (!(await deps.pollSpacing.allows(requestId).catch(() => true)))
    throw new AppError(429, 'slow_down', { interval: POLL_INTERVAL_SECONDS });
  let accessToken: string | null = null;
  if (doc.status === 'approved' && doc.token_sealed && (await claimOnce(`access-token-pickup:${requestId}`))) {
    accessToken = deps.box.decrypt(doc.token_sealed);
    await AccessRequestModel.updateOne({ _id: requestId }, { token_sealed: null });
  }
  return {
    request_id: doc._id,
    status: stateOf(doc),
    project_name: doc.project_name,
    requested_scopes: doc.requested_scopes as AccessScope[],
    ttl_hours: doc.ttl_hours,
    multi_brand: doc.multi_brand,
    created_at: iso(doc.created_at),
    expires_at: iso(doc.expires_at),
    decided_at: iso(doc.decided_at),
    poll_interval_seconds: POLL_INTERVAL_SECONDS,
    access_token: accessToken,
    token_id: doc.token_id ?? null,
    token_expires_at: iso(doc.token_expires_at),
    brand_ids: doc.brand_ids,
  };
}

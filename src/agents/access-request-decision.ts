/**
 * An approver's decision on an access request, delivered to its workflow: by following their e-mail's link (its
 * approval token names them) or signed in to the console (their role names what they may grant). The first
 * decision wins; a later one is 409, one past the deadline 410.
 */
import { safeEqual, sha256 } from '../lib/crypto';
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { Caller } from '../lib/tenancy';
import { brandDirectory } from '../brands/brand-directory';
import type { Approver, Verdict } from '../../workflows/access-request-api';
import { AccessRequestModel, stateOf, type AccessRequestDoc } from './access-request.model';
import { brandsToGrant, CLIENT_ADMIN, type BrandGrant } from './access-decisions';
import type { AccessRequestWorkflows } from './agents.workflows';

/** The approver's changes to the limits offered (checked by the caller). */
export type OfferChanges = Schemas['AgentLimitsChange'];

/**
 * Whom a signed-in user decides as (docs/decisions.md §6): a brand_admin as the brand_admin the approval e-mail
 * goes to (only brands they administer, never a multi_brand request); a super_admin as the client's administrator.
 * Their e-mail address is recorded as the decider, as a link's recipient's is.
 */
export function approverFor(caller: Caller): Approver {
  const email = caller.email?.toLowerCase() ?? null;
  if (caller.kind === 'user' && caller.role === 'brand_admin' && caller.userId)
    return { email, role: 'brand_admin', user_id: caller.userId };
  if (caller.kind === 'user' && caller.role === 'super_admin')
    return { email, role: 'client_admin', user_id: caller.userId ?? null };
  throw AppError.forbidden('Only a super_admin or a brand_admin decides access requests');
}

/** The approver whose link carries this token (compared in constant time), or 401. */
export async function approverOf(
  requestId: string,
  approvalToken: string,
): Promise<{ doc: AccessRequestDoc; approver: Approver }> {
  const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
  if (!doc) throw AppError.notFound('Access request not found');
  const hash = sha256(approvalToken);
  const matches = (doc.approvers ?? []).filter((a) => safeEqual(a.token_hash, hash));
  if (matches.length)
    return {
      doc,
      approver: {
        email: matches[0].email,
        role: matches[0].role as Approver['role'],
        user_id: matches[0].user_id ?? null,
      },
    };
  if (doc.approval_token_hash && safeEqual(doc.approval_token_hash, hash)) return { doc, approver: CLIENT_ADMIN };
  throw AppError.unauthorized('Wrong approval_token');
}

/** What this approver's decision would do, or why they may not make it. */
export async function authorityOf(doc: AccessRequestDoc, approver: Approver, verdict: Verdict): Promise<BrandGrant> {
  if (approver.email && approver.email === doc.owner_email?.toLowerCase()) {
    return { refused: 'You asked for this access yourself; another administrator of the client must decide' };
  }
  return verdict === 'denied' ? { brand_ids: [] } : brandsToGrant(doc, approver);
}

/**
 * Delivers a decision to the request's workflow, whoever makes it (a link's approver or a signed-in one): the
 * first wins, a later one is 409, one past the deadline 410.
 */
async function decideFor(
  workflows: AccessRequestWorkflows,
  doc: AccessRequestDoc,
  approver: Approver,
  verdict: Verdict,
  limits?: OfferChanges,
) {
  const requestId = doc._id;
  const state = stateOf(doc);
  if (state === 'expired') throw new AppError(410, 'Access request has expired');
  if (state !== 'pending') throw AppError.conflict(`Access request already ${state}`);
  const authority = await authorityOf(doc, approver, verdict);
  if ('refused' in authority) throw AppError.forbidden(authority.refused);
  const changes = verdict === 'approved' ? limits : undefined;
  const decision = await workflows.decide(requestId, verdict, approver, changes, async () => {
    // The run ended before this decision reached it: the state it left says why.
    const now = stateOf((await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>())!);
    if (now === 'expired') return new AppError(410, 'Access request has expired');
    return now === 'pending' ? null : AppError.conflict(`Access request already ${now}`);
  });
  return {
    decision,
    scopes: doc.requested_scopes,
    brands: await brandDirectory.names(doc.client_id ?? '', decision.brand_ids),
  };
}

/**
 * A signed-in approver's decision (the console): the same checks and the same workflow Update as a link's,
 * as the approver their e-mail would name. Another client's request, or one outside `scope`, is 404.
 */
export async function decideAs(
  workflows: AccessRequestWorkflows,
  caller: Caller,
  scope: string | null,
  requestId: string,
  verdict: Verdict,
  limits?: OfferChanges,
) {
  const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
  if (!doc || !doc.client_id || (scope && doc.client_id !== scope)) throw AppError.notFound('Access request not found');
  return decideFor(workflows, doc, approverFor(caller), verdict, limits);
}

/**
 * Delivers the decision of a link's approver to the workflow (a POST), with their changes to the limits offered
 * (checked by the caller), and reports the decision it actually took.
 */
export async function decideByLink(
  workflows: AccessRequestWorkflows,
  requestId: string,
  approvalToken: string,
  verdict: Verdict,
  limits?: OfferChanges,
) {
  const { doc, approver } = await approverOf(requestId, approvalToken);
  return decideFor(workflows, doc, approver, verdict, limits);
}

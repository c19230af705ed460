/**
 * What an approver sees of a request before deciding: the facts its approve and deny links' pages show (what their
 * decision would do, or why they may not make it), and the console's list of requests they could decide.
 */
import type { JsonAnswer, QueryParams, Schemas } from '../lib/contract-types';
import { iso } from '../lib/ids';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import type { Caller } from '../lib/tenancy';
import { clientDirectory } from '../clients/client-directory';
import { brandDirectory } from '../brands/brand-directory';
import type { AgentLimitValues, Approver, Verdict } from '../../workflows/access-request-api';
import { AccessRequestModel, stateOf, stateReason, type AccessRequestDoc } from './access-request.model';
import type { BrandGrant } from './access-decisions';
import { approverFor, approverOf, authorityOf } from './access-request-decision';
import { scopeInWords } from './approval-views';
import { limitValuesOf, offeredLimits } from './agent-limits';

/** The states a console lists requests in. */
type ListedState = NonNullable<QueryParams<'listAccessRequests'>['status']>;

/** What this approver's decision would do, as the approve and deny links' pages show it. */
async function factsFor(
  doc: AccessRequestDoc,
  approver: Approver,
  verdict: Verdict,
): Promise<Schemas['AccessDecisionPreview']> {
  const state = stateOf(doc);
  // Both decisions, so that the page offers either one this approver may make, whichever link they followed.
  const [approve, deny]: BrandGrant[] =
    state === 'pending'
      ? await Promise.all([authorityOf(doc, approver, 'approved'), authorityOf(doc, approver, 'denied')])
      : [{ refused: stateReason(state) }, { refused: stateReason(state) }];
  const authority = verdict === 'approved' ? approve : deny;
  const decision = (grant: BrandGrant) => ({
    can_decide: !('refused' in grant),
    reason: 'refused' in grant ? grant.refused : null,
  });
  const clientId = doc.client_id ?? '';
  const granted = 'brand_ids' in approve ? approve.brand_ids : [];
  const [client, brands, limits] = await Promise.all([
    clientDirectory.profile(clientId),
    brandDirectory.names(clientId, granted),
    offeredLimits(doc, granted),
  ]);
  return {
    request_id: doc._id,
    status: state,
    verdict,
    project_name: doc.project_name,
    owner_email: doc.owner_email ?? null,
    requested_scopes: doc.requested_scopes,
    ttl_hours: doc.ttl_hours,
    multi_brand: doc.multi_brand,
    expires_at: iso(doc.expires_at)!,
    approver_email: approver.email,
    brand_ids: 'brand_ids' in authority ? authority.brand_ids : [],
    ...decision(authority),
    client_name: client?.name ?? null,
    brands,
    fingerprint: (doc.fingerprint ?? {}) as Record<string, unknown>,
    decisions: { approved: decision(approve), denied: decision(deny) },
    limits,
  };
}

/** A request as a signed-in approver reviews it: the facts of its approve link's page, for them. */
async function reviewFor(doc: AccessRequestDoc, approver: Approver): Promise<Schemas['AccessRequestReview']> {
  const facts = await factsFor(doc, approver, 'approved');
  return {
    request_id: facts.request_id,
    client_id: doc.client_id!,
    client_name: facts.client_name,
    status: facts.status,
    project_name: facts.project_name,
    owner_email: facts.owner_email,
    requested_scopes: facts.requested_scopes,
    scopes_in_words: facts.requested_scopes.map((scope) => ({ scope, words: scopeInWords(scope) })),
    ttl_hours: facts.ttl_hours,
    multi_brand: facts.multi_brand,
    fingerprint: facts.fingerprint,
    created_at: iso(doc.created_at)!,
    expires_at: facts.expires_at,
    decided_at: iso(doc.decided_at),
    decided_by: doc.decided_by ?? null,
    brand_ids: facts.brand_ids,
    brands: facts.brands,
    decisions: facts.decisions,
    limits: facts.limits,
    approved_limits: doc.status === 'approved' && doc.limits ? limitValuesOf(doc.limits as AgentLimitValues) : null,
  };
}

/**
 * What following a link would decide, without deciding (a GET: mail scanners and link previews fetch
 * links, so a GET never decides).
 */
export async function previewByLink(
  requestId: string,
  approvalToken: string,
  verdict: Verdict,
): Promise<Schemas['AccessDecisionPreview']> {
  const { doc, approver } = await approverOf(requestId, approvalToken);
  return factsFor(doc, approver, verdict);
}

/**
 * The requests a signed-in approver could decide (their client's; a super_admin's in `scope`, or every
 * client's), newest first, each with the facts its approve link's page shows, for this approver.
 */
export async function listForApprover(
  caller: Caller,
  scope: string | null,
  status: ListedState,
  page: Page,
): Promise<JsonAnswer<'listAccessRequests', 200>> {
  const approver = approverFor(caller);
  const now = new Date();
  const byState = {
    pending: { status: 'pending', expires_at: { $gt: now } },
    expired: { $or: [{ status: 'expired' }, { status: 'pending', expires_at: { $lte: now } }] },
    approved: { status: 'approved' },
    denied: { status: 'denied' },
  }[status];
  const filter = { client_id: scope ?? { $ne: null }, ...byState };
  const { docs, total } = await findPage<AccessRequestDoc>(
    AccessRequestModel,
    { filter, sort: { created_at: -1, _id: 1 }, projection: { token_sealed: 0 } },
    page,
  );
  const requests = await Promise.all(docs.map((doc) => reviewFor(doc, approver)));
  return pageEnvelope('requests', requests, total, page);
}

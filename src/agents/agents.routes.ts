import type { AnyRequest, OperationHandlers, OperationRequest, OperationResponse } from '../lib/http/operations';
import { rawResponse } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, tenantScope } from '../lib/tenancy';
import { checkFreeForm } from '../lib/http/free-form';
import { clientAddress } from '../lib/http/client-address';
import { AppError } from '../lib/errors';
import type { Verdict } from '../../workflows/access-request-api';
import { APPROVAL_PAGE_HEADERS, confirmationPage, decisionLines, decisionPage } from './approval-views';
import type { AccessRequests } from './access-requests.service';
import type { Tokens } from './tokens.service';

/** Following an approver's link (GET) and confirming it (POST), for either verdict. */
type PreviewOperation = 'approveAccessRequest' | 'denyAccessRequest';
type DecideOperation = 'confirmApproveAccessRequest' | 'confirmDenyAccessRequest';

/**
 * An agent's access: its request, the approver's links and decision, the agent's poll for the token, and the
 * tokens and per-brand agent users as their client manages them.
 */
export function agentsRoutes(deps: { requests: AccessRequests; tokens: Tokens }): OperationHandlers {
  const { requests, tokens } = deps;

  const wantsHtml = (req: AnyRequest) => req.accepts(['application/json', 'text/html']) === 'text/html';

  /**
   * Following a link (GET) decides nothing: a person sees what the decision would do and one button that
   * POSTs it to the same URL; a client asking for JSON gets the same facts. Mail scanners fetch links.
   */
  async function preview(
    req: OperationRequest<PreviewOperation>,
    res: OperationResponse<PreviewOperation>,
    verdict: Verdict,
  ) {
    const token = req.query.approval_token;
    const facts = await requests.preview(req.params.request_id, token, verdict);
    if (!wantsHtml(req)) return void res.json(facts);
    res.set(APPROVAL_PAGE_HEADERS).type('html').send(confirmationPage(facts, token));
  }

  /** The button (or a JSON client) POSTs the decision; a person gets its outcome, or why it failed, as a page. */
  async function decide(
    req: OperationRequest<DecideOperation>,
    res: OperationResponse<DecideOperation>,
    verdict: Verdict,
  ) {
    const decided = requests.decide(req.params.request_id, req.query.approval_token, verdict);
    if (!wantsHtml(req)) return void res.json((await decided).decision);
    res.set(APPROVAL_PAGE_HEADERS).type('html');
    try {
      const { decision, scopes, brands } = await decided;
      res.send(
        decisionPage(
          decision.status === 'approved' ? 'Access approved' : 'Access denied',
          decisionLines(decision, scopes, brands),
        ),
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      // The error's own status, with the page the contract declares beside its JSON for each of them.
      rawResponse(res)
        .status(err.status)
        .send(decisionPage('Nothing was decided', [err.detail]));
    }
  }

  return {
    async requestAccessToken(req, res) {
      checkFreeForm(req.body.fingerprint, 'fingerprint');
      res.json(await requests.request(req.body, clientAddress(req)));
    },
    async requestAccessTokenByEmail(req, res) {
      checkFreeForm(req.body.fingerprint, 'fingerprint');
      res.json(await requests.requestByEmail(req.body, clientAddress(req)));
    },
    async getAccessRequestStatus(req, res) {
      res.json(await requests.status(req.params.request_id, req.query.poll_token));
    },
    approveAccessRequest: (req, res) => preview(req, res, 'approved'),
    denyAccessRequest: (req, res) => preview(req, res, 'denied'),
    confirmApproveAccessRequest: (req, res) => decide(req, res, 'approved'),
    confirmDenyAccessRequest: (req, res) => decide(req, res, 'denied'),
    async getAccessTokenStatus(req, res) {
      res.json(await tokens.describe(callerOf(req), new Date()));
    },
    async listAccessTokens(req, res) {
      const caller = callerOf(req);
      const scope =
        caller.role === 'super_admin'
          ? typeof req.query.client_id === 'string'
            ? req.query.client_id
            : tenantScope(req)
          : tenantScope(req);
      res.json(await tokens.list(caller, scope, req.query.include_inactive === true, pageOf(req.query)));
    },
    async revokeAccessToken(req, res) {
      res.json(await tokens.revoke(callerOf(req), tenantScope(req), req.params.token_id));
    },
    async listAgentUsers(req, res) {
      const { brand_id } = req.params;
      res.json(
        await tokens.agentUsers(callerOf(req), brand_id, req.query.include_inactive === true, pageOf(req.query)),
      );
    },
    async revokeAgentUser(req, res) {
      res.json(await tokens.revokeAgentUser(callerOf(req), req.params.brand_id, req.params.agent_user_id));
    },
    async regenerateAgentToken(req, res) {
      res.json(await tokens.regenerate(callerOf(req), req.params.brand_id, req.params.agent_user_id));
    },
  };
}

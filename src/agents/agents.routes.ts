import type { AnyRequest, OperationHandlers, OperationRequest, OperationResponse } from '../lib/http/operations';
import { rawResponse } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, tenantScope } from '../lib/tenancy';
import { checkFreeForm } from '../lib/http/free-form';
import { clientAddress } from '../lib/http/client-address';
import { AppError } from '../lib/errors';
import type { FormBody } from '../lib/contract-types';
import { FORM_MEDIA_TYPE } from '../lib/http/json-body';
import { LIMIT_FIELDS, limitChangeErrors, type LimitChanges, type Verdict } from '../../workflows/access-request-api';
import {
  APPROVAL_PAGE_HEADERS,
  confirmationPage,
  decisionLines,
  decisionPage,
  type EnteredLimits,
} from './approval-views';
import type { AccessRequests } from './access-requests.service';
import type { Tokens } from './tokens.service';

/** Following an approver's link (GET) and confirming it (POST), for either verdict. */
type PreviewOperation = 'approveAccessRequest' | 'denyAccessRequest';
type DecideOperation = 'confirmApproveAccessRequest' | 'confirmDenyAccessRequest';

/** A decimal number as a form field holds it (nothing else: no sign, exponent or spaces inside). */
const DECIMAL = /^\d{1,12}(?:\.\d{1,12})?$/;

/**
 * The approve form's limit fields as changes (an empty field: no limit; one left out: the offer), with what is
 * wrong with each: the contract checks a JSON body's limits, a form's text is checked here by the same bounds.
 */
function limitsFromForm(form: FormBody<'confirmApproveAccessRequest'> | undefined): {
  changes: LimitChanges;
  entered: EnteredLimits;
} {
  const values = form ?? {};
  const changes: LimitChanges = {};
  const errors: EnteredLimits['errors'] = [];
  for (const field of LIMIT_FIELDS) {
    const text = values[field]?.trim();
    if (text === undefined) continue;
    if (text === '') changes[field] = null;
    else if (DECIMAL.test(text)) changes[field] = Number(text);
    else errors.push({ field, message: 'must be a number' });
  }
  errors.push(...limitChangeErrors(changes));
  return { changes, entered: { values, errors } };
}

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

  /**
   * The approver's changes to the limits: a JSON body as the contract checked it, or the approve form's fields.
   * Fields that are not valid decide nothing: 422, a person gets the page again with what they entered (and this
   * answers null: the request is answered).
   */
  async function limitChanges(
    req: OperationRequest<'confirmApproveAccessRequest'>,
    res: OperationResponse<'confirmApproveAccessRequest'>,
  ): Promise<LimitChanges | undefined | null> {
    if (!req.is(FORM_MEDIA_TYPE)) return req.body;
    const { changes, entered } = limitsFromForm(req.body as FormBody<'confirmApproveAccessRequest'> | undefined);
    if (!entered.errors.length) return changes;
    const errors = entered.errors.map((e) => ({ location: 'body', ...e }));
    if (!wantsHtml(req)) throw AppError.invalid('Invalid limits', errors);
    const facts = await requests.preview(req.params.request_id, req.query.approval_token, 'approved');
    rawResponse(res)
      .status(422)
      .set(APPROVAL_PAGE_HEADERS)
      .type('html')
      .send(confirmationPage(facts, req.query.approval_token, { entered }));
    return null;
  }

  /** The button (or a JSON client) POSTs the decision; a person gets its outcome, or why it failed, as a page. */
  async function decide(
    req: OperationRequest<DecideOperation>,
    res: OperationResponse<DecideOperation>,
    verdict: Verdict,
    limits?: LimitChanges,
  ) {
    const decided = requests.decide(req.params.request_id, req.query.approval_token, verdict, limits);
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
    async confirmApproveAccessRequest(req, res) {
      const limits = await limitChanges(req, res);
      if (limits !== null) await decide(req, res, 'approved', limits);
    },
    confirmDenyAccessRequest: (req, res) => decide(req, res, 'denied'),
    async listAccessRequests(req, res) {
      const status = req.query.status ?? 'pending';
      res.json(await requests.listFor(callerOf(req), tenantScope(req), status, pageOf(req.query)));
    },
    async decideAccessRequest(req, res) {
      const { verdict, limits } = req.body;
      if (verdict === 'denied' && limits !== undefined)
        throw AppError.invalid('A denial takes no limits', [
          { location: 'body', field: 'limits', message: 'only an approval takes limits' },
        ]);
      const { decision } = await requests.decideAs(
        callerOf(req),
        tenantScope(req),
        req.params.request_id,
        verdict,
        limits,
      );
      res.json(decision);
    },
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
    async updateAgentUserLimits(req, res) {
      const { brand_id, agent_user_id } = req.params;
      res.json(await tokens.updateAgentUserLimits(callerOf(req), brand_id, agent_user_id, req.body));
    },
    async updateAccessTokenLimits(req, res) {
      res.json(await tokens.updateTokenLimits(callerOf(req), tenantScope(req), req.params.token_id, req.body));
    },
  };
}

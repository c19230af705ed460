import type { Request, Response } from 'express';
import type { Services } from '../services';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, tenantScope } from '../lib/tenancy';
import { checkFreeForm } from '../lib/http/free-form';
import type { Verdict } from '../../workflows/access-request-api';
import { decisionLines, decisionPage } from './approval-views';

const flag = (req: Request, name: string) => String(req.query[name]) === 'true';

export function agentsRoutes(s: Services): OperationHandlers {
  const { requests, tokens } = s.agents;

  /** The link is opened by a person (HTML) or followed by a client asking for JSON. */
  async function decide(req: Request, res: Response, verdict: Verdict) {
    const { decision, scopes } = await requests.decide(pathParam(req, 'request_id'), String(req.query.approval_token), verdict);
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      const title = decision.status === 'approved' ? 'Access approved' : 'Access denied';
      return void res.type('html').send(decisionPage(title, decisionLines(decision, scopes)));
    }
    res.json(decision);
  }

  return {
    async requestAccessToken(req, res) {
      checkFreeForm(req.body.fingerprint, 'fingerprint');
      res.json(await requests.request(req.body, req.ip ?? 'unknown'));
    },
    async requestAccessTokenByEmail(req, res) {
      checkFreeForm(req.body.fingerprint, 'fingerprint');
      res.json(await requests.requestByEmail(req.body, req.ip ?? 'unknown'));
    },
    async getAccessRequestStatus(req, res) {
      res.json(await requests.status(pathParam(req, 'request_id'), String(req.query.poll_token)));
    },
    approveAccessRequest: (req, res) => decide(req, res, 'approved'),
    denyAccessRequest: (req, res) => decide(req, res, 'denied'),
    async getAccessTokenStatus(req, res) {
      res.json(await tokens.describe(callerOf(req), new Date()));
    },
    async listAccessTokens(req, res) {
      const caller = callerOf(req);
      const scope = caller.role === 'super_admin' ? (typeof req.query.client_id === 'string' ? req.query.client_id : tenantScope(req)) : tenantScope(req);
      res.json(await tokens.list(scope, flag(req, 'include_inactive'), pageOf(req)));
    },
    async revokeAccessToken(req, res) {
      res.json(await tokens.revoke(tenantScope(req), pathParam(req, 'token_id')));
    },
    async listAgentUsers(req, res) {
      res.json(await tokens.agentUsers(callerOf(req), Number(pathParam(req, 'brand_id')), flag(req, 'include_inactive'), pageOf(req)));
    },
    async revokeAgentUser(req, res) {
      res.json(await tokens.revokeAgentUser(callerOf(req), Number(pathParam(req, 'brand_id')), pathParam(req, 'agent_user_id')));
    },
    async regenerateAgentToken(req, res) {
      res.json(await tokens.regenerate(callerOf(req), Number(pathParam(req, 'brand_id')), pathParam(req, 'agent_user_id')));
    },
  };
}

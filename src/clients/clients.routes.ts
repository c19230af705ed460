import { AppError } from '../lib/errors';
import type { OperationHandlers } from '../lib/http/operations';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant } from '../lib/tenancy';
import type { ClientsService } from './clients.service';
import type { WebhookSecrets } from './webhook-secrets';

export interface ClientsRouteDeps {
  clients: ClientsService;
  webhooks: WebhookSecrets;
  /** Which addresses a deploy hook may reach. */
  outbound: OutboundPolicy;
}

/** Clients (tenants) as a super_admin manages them, and a client's own credentials and webhook signing secret. */
export function clientsRoutes(deps: ClientsRouteDeps): OperationHandlers {
  return {
    async createClient(req, res) {
      assertSubmittedUrl(req.body.deploy_hook_url, 'deploy_hook_url', deps.outbound);
      res.status(201).json(await deps.clients.create(req.body));
    },
    async listClients(req, res) {
      res.json(await deps.clients.list({ is_active: req.query.is_active }, pageOf(req.query)));
    },
    /** The caller's client's webhook signing secret (never cached: it is a secret). */
    async getWebhookSecret(req, res) {
      res.set('Cache-Control', 'no-store').json(await deps.webhooks.read(requireTenant(req)));
    },
    async rotateWebhookSecret(req, res) {
      res.set('Cache-Control', 'no-store').json(await deps.webhooks.rotate(requireTenant(req)));
    },
    async updateClient(req, res) {
      assertSubmittedUrl(req.body.deploy_hook_url, 'deploy_hook_url', deps.outbound);
      res.json(await deps.clients.update(req.params.client_id, req.body));
    },
    /** A new key and secret for the caller's own client (a super_admin has none). */
    async regenerateCredentials(req, res) {
      const caller = callerOf(req);
      if (caller.role === 'super_admin')
        throw AppError.forbidden('A super_admin has no client credentials to regenerate');
      if (!caller.clientId) throw AppError.forbidden('This account belongs to no client');
      res.json(await deps.clients.regenerate(caller.clientId, { caller, address: req.ip ?? 'unknown' }));
    },
  };
}

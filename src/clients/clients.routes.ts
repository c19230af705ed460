import type { Services } from '../services';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { assertSubmittedUrl, outboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { requireTenant } from '../lib/tenancy';

export function clientsRoutes(s: Services): OperationHandlers {
  return {
    async createClient(req, res) {
      assertSubmittedUrl(req.body.deploy_hook_url, 'deploy_hook_url', outboundPolicy(s.config));
      res.status(201).json(await s.clients.create(req.body));
    },
    async listClients(req, res) {
      const isActive = req.query.is_active as unknown as boolean | undefined;
      res.json(await s.clients.list({ is_active: isActive }, pageOf(req)));
    },
    /** The caller's client's webhook signing secret (never cached: it is a secret). */
    async getWebhookSecret(req, res) {
      res.set('Cache-Control', 'no-store').json(await s.webhookSecrets.read(requireTenant(req)));
    },
    async rotateWebhookSecret(req, res) {
      res.set('Cache-Control', 'no-store').json(await s.webhookSecrets.rotate(requireTenant(req)));
    },
    async updateClient(req, res) {
      assertSubmittedUrl(req.body.deploy_hook_url, 'deploy_hook_url', outboundPolicy(s.config));
      res.json(await s.clients.update(pathParam(req, 'client_id'), req.body));
    },
  };
}

import { AppError, type FieldError } from '../lib/errors';
import type { OperationHandlers, OperationRequest, OperationResponse } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf } from '../lib/tenancy';
import { requestBrandAccess } from '../brands/brand-access';
import { actingBrand } from '../brands/acting-brand';
import type { BrandLookup } from '../brands/brand-cache';
import type { IntegrationsService } from './integrations.service';
import type { Relay } from './relay/relay.service';
import type { ProviderName } from './providers';
import type { Params, ProviderCall } from './relay/forward';

/** The relays an agent calls a provider through, with its brand's key. */
type RelayOperation = 'proxyMaps' | 'proxyParcelTracking' | 'proxyMessaging';
const COUNTRY_HEADER = 'x-country-code';

/** Relay params and form fields: strings, numbers, booleans, or lists of them (422 naming the field otherwise). */
function paramsOf(value: unknown, field: string): Params | undefined {
  if (value === undefined) return undefined;
  const errors: FieldError[] = [];
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(scalar(v) || (Array.isArray(v) && v.every(scalar))))
      errors.push({
        location: 'body',
        field: `${field}.${k}`,
        message: 'must be a string, number, boolean or a list of them',
      });
  }
  if (errors.length) throw AppError.invalid(`Invalid ${field}: ${errors.map((e) => e.field).join(', ')}`, errors);
  return value as Params;
}

export interface IntegrationsRouteDeps {
  service: IntegrationsService;
  relay: Relay;
  /** Resolves the brand a relay call acts for. */
  brands: BrandLookup;
}

/** A brand's provider keys (their limits, spend and billing sync) and the relays that call providers with them. */
export function integrationsRoutes(deps: IntegrationsRouteDeps): OperationHandlers {
  const { service: svc, relay } = deps;
  const relayFor =
    <Op extends RelayOperation>(provider: ProviderName, call: (req: OperationRequest<Op>) => ProviderCall) =>
    async (req: OperationRequest<Op>, res: OperationResponse<RelayOperation>) => {
      const access = await actingBrand(req, deps.brands);
      const agent = callerOf(req).agentUsers?.find((u) => u.brandId === access.brand._id) ?? null;
      res.json(await relay.relay(access, provider, call(req), req.get(COUNTRY_HEADER) ?? null, agent));
    };
  return {
    async listProviderTemplates(req, res) {
      await requestBrandAccess(req, 'member');
      res.json(svc.providers());
    },
    async getIntegrationOverview(req, res) {
      res.json(await svc.overview(await requestBrandAccess(req, 'member')));
    },
    async listIntegrations(req, res) {
      res.json(await svc.list(await requestBrandAccess(req, 'member'), req.query.provider_name, pageOf(req.query)));
    },
    async getIntegration(req, res) {
      res.json(await svc.get(await requestBrandAccess(req, 'member'), req.params.integration_id));
    },
    async createIntegration(req, res) {
      res.status(201).json(await svc.create(await requestBrandAccess(req, 'admin'), req.body));
    },
    async updateIntegration(req, res) {
      res.json(await svc.update(await requestBrandAccess(req, 'admin'), req.params.integration_id, req.body));
    },
    async deleteIntegration(req, res) {
      res.json(await svc.remove(await requestBrandAccess(req, 'admin'), req.params.integration_id));
    },
    async resetIntegrationUsage(req, res) {
      res.json(await svc.resetUsage(await requestBrandAccess(req, 'admin'), req.params.integration_id));
    },
    async getIntegrationSpend(req, res) {
      res.json(
        await svc.keySpend(await requestBrandAccess(req, 'member'), req.params.integration_id, req.query.days ?? 30),
      );
    },
    async getProviderSpend(req, res) {
      res.json(
        await svc.providerSpend(
          await requestBrandAccess(req, 'member'),
          req.params.provider_name,
          req.query.days ?? 30,
        ),
      );
    },
    async testIntegration(req, res) {
      res.json(await svc.test(await requestBrandAccess(req, 'admin'), req.params.integration_id));
    },
    async syncIntegrationBilling(req, res) {
      res.status(202).json(await svc.syncBilling(await requestBrandAccess(req, 'admin'), req.params.integration_id));
    },
    proxyMaps: relayFor('maps', (req: OperationRequest<'proxyMaps'>) => ({
      method: 'GET',
      path: req.params.path,
      params: paramsOf(req.body.params, 'params'),
    })),
    proxyParcelTracking: relayFor('parcel-tracking', (req: OperationRequest<'proxyParcelTracking'>) => ({
      method: req.body.method ?? 'GET',
      path: req.body.path,
      params: paramsOf(req.body.params, 'params'),
      json: req.body.json_body,
    })),
    proxyMessaging: relayFor('messaging', (req: OperationRequest<'proxyMessaging'>) => ({
      method: req.body.method ?? 'POST',
      path: req.body.path,
      params: paramsOf(req.body.params, 'params'),
      form: paramsOf(req.body.form_body, 'form_body'),
    })),
  };
}

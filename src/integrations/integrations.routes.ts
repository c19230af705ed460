import type { Request, Response } from 'express';
import { AppError, type FieldError } from '../lib/errors';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { requestBrandAccess } from '../brands/brand-access';
import { actingBrand } from '../brands/acting-brand';
import type { BrandLookup } from '../brands/brand-cache';
import type { IntegrationsService } from './integrations.service';
import type { Relay } from './relay/relay.service';
import type { ProviderName, RelayMethod } from './providers';
import type { Params, ProviderCall } from './relay/forward';

const idOf = (req: Request) => Number(pathParam(req, 'integration_id'));
const daysOf = (req: Request) => Number(req.query.days ?? 30);
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

function relayCall(req: Request, provider: ProviderName): ProviderCall {
  const b = req.body as Record<string, unknown>;
  const defaultMethod: RelayMethod = provider === 'messaging' ? 'POST' : 'GET';
  return {
    method: (b.method as RelayMethod | undefined) ?? defaultMethod,
    path: String(b.path),
    params: paramsOf(b.params, 'params'),
    json: provider === 'parcel-tracking' ? (b.json_body as Record<string, unknown> | undefined) : undefined,
    form: provider === 'messaging' ? paramsOf(b.form_body, 'form_body') : undefined,
  };
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
    (provider: ProviderName, call: (req: Request) => ProviderCall) => async (req: Request, res: Response) => {
      const access = await actingBrand(req, deps.brands);
      res.json(await relay.relay(access, provider, call(req), req.get(COUNTRY_HEADER) ?? null));
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
      res.json(
        await svc.list(
          await requestBrandAccess(req, 'member'),
          req.query.provider_name as string | undefined,
          pageOf(req),
        ),
      );
    },
    async getIntegration(req, res) {
      res.json(await svc.get(await requestBrandAccess(req, 'member'), idOf(req)));
    },
    async createIntegration(req, res) {
      res.status(201).json(await svc.create(await requestBrandAccess(req, 'admin'), req.body));
    },
    async updateIntegration(req, res) {
      res.json(await svc.update(await requestBrandAccess(req, 'admin'), idOf(req), req.body));
    },
    async deleteIntegration(req, res) {
      res.json(await svc.remove(await requestBrandAccess(req, 'admin'), idOf(req)));
    },
    async resetIntegrationUsage(req, res) {
      res.json(await svc.resetUsage(await requestBrandAccess(req, 'admin'), idOf(req)));
    },
    async getIntegrationSpend(req, res) {
      res.json(await svc.keySpend(await requestBrandAccess(req, 'member'), idOf(req), daysOf(req)));
    },
    async getProviderSpend(req, res) {
      res.json(
        await svc.providerSpend(await requestBrandAccess(req, 'member'), pathParam(req, 'provider_name'), daysOf(req)),
      );
    },
    async testIntegration(req, res) {
      res.json(await svc.test(await requestBrandAccess(req, 'admin'), idOf(req)));
    },
    async syncIntegrationBilling(req, res) {
      res.status(202).json(await svc.syncBilling(await requestBrandAccess(req, 'admin'), idOf(req)));
    },
    proxyMaps: relayFor('maps', (req) => ({
      method: 'GET',
      path: pathParam(req, 'path'),
      params: paramsOf(req.body.params, 'params'),
    })),
    proxyParcelTracking: relayFor('parcel-tracking', (req) => relayCall(req, 'parcel-tracking')),
    proxyMessaging: relayFor('messaging', (req) => relayCall(req, 'messaging')),
  };
}

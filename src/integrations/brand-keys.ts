/** A brand's keys as the API shows them: one, a page of them, and a summary per provider. */
import type { JsonAnswer, QueryParams, Schemas } from '../lib/contract-types';
import { orNull } from '../lib/api-views';
import { AppError } from '../lib/errors';
import { iso } from '../lib/ids';
import { pageEnvelope, type Page } from '../lib/pagination';
import type { BrandAccess } from '../brands/brand-access';
import { IntegrationModel, type IntegrationDoc } from './integration.model';
import type { Limits } from './limits';
import { PROVIDER_NAMES, PROVIDERS, templateOf, templateView } from './providers';
import { currentSpend } from './spend';

/** The brand's key with this id, or 404 (another brand's key reads as absent). */
export async function findKey(access: BrandAccess, id: number): Promise<IntegrationDoc> {
  const key = await IntegrationModel.findOne({ _id: id, client_id: access.brand.client_id }).lean<IntegrationDoc>();
  if (!key || key.brand_id !== access.brand._id) throw AppError.notFound('Integration not found');
  return key;
}

/** A key with its usage today and its spend this period (read when not given). */
export async function keyView(limits: Limits, k: IntegrationDoc, spend?: number): Promise<Schemas['IntegrationKey']> {
  const usage = await limits.usage(k._id);
  return {
    integration_id: k._id,
    brand_id: k.brand_id,
    provider_name: k.provider_name,
    key_label: k.key_label,
    credentials_masked: k.credentials_masked as Record<string, string>,
    ...orNull(k, 'daily_limit', 'minute_limit'),
    ...usage,
    is_primary: k.is_primary,
    is_active: k.is_active,
    ...orNull(k, 'country_code', 'spend_limit_amount', 'spend_limit_period', 'spend_limit_action'),
    share_with_pool: k.share_with_pool,
    spend_current_period: spend ?? (await currentSpend(k.client_id, [k])).get(k._id) ?? 0,
    currency: templateOf(k.provider_name)?.currency ?? 'USD',
    last_used_at: iso(k.last_used_at),
    created_at: iso(k.created_at)!,
    updated_at: iso(k.updated_at)!,
  };
}

export const providerTemplates = (): JsonAnswer<'listProviderTemplates', 200> => ({
  providers: PROVIDER_NAMES.map((n) => templateView(PROVIDERS[n])),
});

/** Per provider the brand has keys for: how many, which is primary, today's usage and the period's spend. */
export async function keysOverview(limits: Limits, access: BrandAccess): Promise<Schemas['IntegrationOverview']> {
  const keys = await IntegrationModel.find({ client_id: access.brand.client_id, brand_id: access.brand._id }).lean<
    IntegrationDoc[]
  >();
  const spend = await currentSpend(access.brand.client_id, keys);
  const providers = [];
  for (const name of PROVIDER_NAMES.filter((n) => keys.some((k) => k.provider_name === n))) {
    const mine = keys.filter((k) => k.provider_name === name);
    const active = mine.filter((k) => k.is_active);
    const usage = await Promise.all(mine.map((k) => limits.usage(k._id)));
    providers.push({
      provider_name: name,
      display_name: PROVIDERS[name].display_name,
      keys_total: mine.length,
      keys_active: active.length,
      primary_integration_id: active.filter((k) => k.is_primary).sort((a, b) => a._id - b._id)[0]?._id ?? null,
      usage_today: usage.reduce((s, u) => s + u.usage_today, 0),
      daily_limit_total: active.some((k) => k.daily_limit === null)
        ? null
        : active.reduce((s, k) => s + (k.daily_limit ?? 0), 0),
      spend_current_period: Math.round(mine.reduce((s, k) => s + (spend.get(k._id) ?? 0), 0) * 1e6) / 1e6,
      currency: PROVIDERS[name].currency,
    });
  }
  return { brand_id: access.brand._id, providers };
}

/** A page of the brand's keys (of one provider if named): by provider, the primary first, then the oldest. */
export async function listKeys(
  limits: Limits,
  access: BrandAccess,
  provider: QueryParams<'listIntegrations'>['provider_name'],
  page: Page,
): Promise<JsonAnswer<'listIntegrations', 200>> {
  const filter = {
    client_id: access.brand.client_id,
    brand_id: access.brand._id,
    ...(provider ? { provider_name: provider } : {}),
  };
  const all = (await IntegrationModel.find(filter).lean<IntegrationDoc[]>()).sort(
    (a, b) =>
      a.provider_name.localeCompare(b.provider_name) || Number(b.is_primary) - Number(a.is_primary) || a._id - b._id,
  );
  const shown = all.slice(page.skip, page.skip + page.page_size);
  const spend = await currentSpend(access.brand.client_id, shown);
  const integrations = await Promise.all(shown.map((k) => keyView(limits, k, spend.get(k._id))));
  return pageEnvelope('integrations', integrations, all.length, page);
}

/** What a brand's keys have used and spent: a key's counters reset, and the spend of a key or of a provider. */
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { BrandAccess } from '../brands/brand-access';
import { IntegrationModel, type IntegrationDoc, type SpendPeriod } from './integration.model';
import { spendPeriodOf, type Limits } from './limits';
import { spendReport } from './spend';
import { findKey, keyView } from './brand-keys';

/** Starts the key's minute and day windows afresh. */
export async function resetKeyUsage(
  limits: Limits,
  access: BrandAccess,
  id: number,
): Promise<Schemas['IntegrationKey']> {
  const key = await findKey(access, id);
  await limits.reset(key._id);
  return keyView(limits, key);
}

/** One key's spend in its period, against its limit, with `days` of history. */
export async function keySpend(access: BrandAccess, id: number, days: number): Promise<Schemas['Spend']> {
  const key = await findKey(access, id);
  return spendReport({
    clientId: key.client_id,
    brandId: key.brand_id,
    provider: key.provider_name,
    integrationId: key._id,
    match: { client_id: key.client_id, integration_id: key._id },
    period: spendPeriodOf(key),
    limit: key.spend_limit_amount ?? null,
    days,
  });
}

/** The spend of all the brand's keys of a provider, in the period and against the limit of its primary key. */
export async function providerSpend(access: BrandAccess, provider: string, days: number): Promise<Schemas['Spend']> {
  const keys = await IntegrationModel.find({
    client_id: access.brand.client_id,
    brand_id: access.brand._id,
    provider_name: provider,
  }).lean<IntegrationDoc[]>();
  if (!keys.length) throw AppError.notFound('Provider not configured');
  const primary = keys.filter((k) => k.is_active && k.is_primary).sort((a, b) => a._id - b._id)[0];
  return spendReport({
    clientId: access.brand.client_id,
    brandId: access.brand._id,
    provider,
    integrationId: null,
    match: { client_id: access.brand.client_id, brand_id: access.brand._id, provider_name: provider },
    period: primary ? spendPeriodOf(primary) : ('monthly' as SpendPeriod),
    limit: primary?.spend_limit_amount ?? null,
    days,
  });
}

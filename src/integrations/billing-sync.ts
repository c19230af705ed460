/** Starting a key's billing sync, a durable workflow (its steps are billing.ts): one per key at a time. */
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { BrandAccess } from '../brands/brand-access';
import { PROVIDERS, type ProviderName } from './providers';
import { billingSyncId, type IntegrationWorkflows } from './integrations.workflows';
import { findKey } from './brand-keys';

export async function startBillingSync(
  workflows: IntegrationWorkflows,
  access: BrandAccess,
  id: number,
): Promise<Schemas['BillingSync']> {
  const key = await findKey(access, id);
  if (!PROVIDERS[key.provider_name as ProviderName].supports_billing_sync)
    throw AppError.conflict(`The ${key.provider_name} provider has no billing API to sync from`);
  const requested_at = new Date().toISOString();
  if (
    !(await workflows.syncBilling({
      client_id: key.client_id,
      brand_id: key.brand_id,
      integration_id: key._id,
    }))
  )
    throw AppError.conflict('A billing sync is already running for this key');
  return { integration_id: key._id, sync_id: billingSyncId(key._id), status: 'queued', requested_at };
}

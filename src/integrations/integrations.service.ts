import type Redis from 'ioredis';
import type { JsonBody, QueryParams } from '../lib/contract-types';
import type { KeyRing } from '../lib/crypto';
import type { RunLocked } from '../lib/locks';
import type { Page } from '../lib/pagination';
import type { BrandAccess } from '../brands/brand-access';
import { activeCredential, type KeyCache, type KeyQuery } from './key-store';
import type { Limits } from './limits';
import type { RelayEndpoints } from './relay/endpoints';
import type { IntegrationWorkflows } from './integrations.workflows';
import { findKey, keysOverview, keyView, listKeys, providerTemplates } from './brand-keys';
import { addKey, removeKey, updateKey } from './key-writes';
import { keySpend, providerSpend, resetKeyUsage } from './key-usage';
import { testKey } from './key-test';
import { startBillingSync } from './billing-sync';

export interface IntegrationsDeps {
  redis: Redis;
  ring: KeyRing;
  keys: KeyCache;
  limits: Limits;
  lock: RunLocked;
  endpoints: RelayEndpoints;
  workflows: IntegrationWorkflows;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * A brand's provider keys: read (brand-keys.ts), written under the one-primary rule (key-writes.ts), their usage
 * and spend (key-usage.ts), tested against the provider (key-test.ts) and reconciled with its billing
 * (billing-sync.ts).
 */
export function createIntegrationsService(deps: IntegrationsDeps) {
  const { limits, ring } = deps;
  return {
    providers: providerTemplates,
    overview: (access: BrandAccess) => keysOverview(limits, access),
    list: (access: BrandAccess, provider: QueryParams<'listIntegrations'>['provider_name'], page: Page) =>
      listKeys(limits, access, provider, page),
    get: async (access: BrandAccess, id: number) => keyView(limits, await findKey(access, id)),
    create: (access: BrandAccess, body: JsonBody<'createIntegration'>) => addKey(deps, access, body),
    update: (access: BrandAccess, id: number, body: JsonBody<'updateIntegration'>) => updateKey(deps, access, id, body),
    remove: (access: BrandAccess, id: number) => removeKey(deps, access, id),
    resetUsage: (access: BrandAccess, id: number) => resetKeyUsage(limits, access, id),
    keySpend,
    providerSpend,
    test: (access: BrandAccess, id: number) => testKey(deps, access, id),
    /** Starts the durable billing sync (one per key at a time). */
    syncBilling: (access: BrandAccess, id: number) => startBillingSync(deps.workflows, access, id),
    /** For other areas: the decrypted credentials of a brand's primary active key (see key-store.ts). */
    activeCredential: (q: KeyQuery) => activeCredential(ring, q),
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;

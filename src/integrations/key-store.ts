import type Redis from 'ioredis';
import { createTokenCache } from '../auth/token-cache';
import type { KeyRing } from '../lib/crypto';
import { IntegrationModel, type IntegrationDoc } from './integration.model';
import type { Credentials, ProviderName } from './providers';

export interface KeyQuery {
  client_id: string;
  brand_id: number;
  provider: ProviderName;
  /** ISO 3166-1 alpha-2; a key limited to a country is used only for it. */
  country_code?: string | null;
}

/**
 * A key may serve a call for `country`: a key without a country serves any call, one with a country only calls
 * for it.
 */
const servesCountry = (k: IntegrationDoc, country: string | null | undefined) =>
  k.country_code === null || (!!country && k.country_code === country);

/** The order keys are tried in: the asked country's own keys first, then primary first, then the oldest. */
function preference(country: string | null | undefined) {
  return (a: IntegrationDoc, b: IntegrationDoc) =>
    Number(!!country && b.country_code === country) - Number(!!country && a.country_code === country) ||
    Number(b.is_primary) - Number(a.is_primary) ||
    a._id - b._id;
}

/** Every active key of a client for a provider (the relays cache this per process, see createKeyCache). */
export function activeKeysOf(clientId: string, provider: ProviderName): Promise<IntegrationDoc[]> {
  return IntegrationModel.find({ client_id: clientId, provider_name: provider, is_active: true }).lean<
    IntegrationDoc[]
  >();
}

/** Of a client's active keys, the brand's own key that a call uses (its primary), or null. */
export function brandKeyIn(keys: IntegrationDoc[], q: KeyQuery): IntegrationDoc | null {
  return (
    keys
      .filter((k) => k.brand_id === q.brand_id && servesCountry(k, q.country_code))
      .sort(preference(q.country_code))[0] ?? null
  );
}

/**
 * Of a client's active keys, those other brands share with the pool (share_with_pool) for the call's
 * country, in preference order. The pool never crosses clients (docs/integrations.md).
 */
export function poolKeysIn(keys: IntegrationDoc[], q: KeyQuery): IntegrationDoc[] {
  return keys
    .filter((k) => k.share_with_pool && k.brand_id !== q.brand_id && servesCountry(k, q.country_code))
    .sort(preference(q.country_code));
}

/**
 * Active keys per client and provider, cached in each process (the access tokens' cache,
 * src/auth/token-cache.ts): every key write, once stored, is invalidated on every process before it is
 * acknowledged, so a changed, deactivated or deleted key is seen by every process on the next call.
 */
export function createKeyCache(redis: Redis) {
  const cache = createTokenCache<IntegrationDoc[]>(redis, {
    epochKey: 'integrations:keys-epoch',
    ttlMs: 60_000,
    name: 'integration_keys',
  });
  const forever = new Date(8.64e15);
  return {
    activeKeys: async (clientId: string, provider: ProviderName) =>
      (await cache.lookup(`${clientId}:${provider}`, async () => ({
        value: await activeKeysOf(clientId, provider),
        expiresAt: forever,
      }))) ?? [],
    /** After a key write is stored. */
    changed: () => cache.invalidate(),
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;

/**
 * The stored credentials of a key; throws when they cannot be decrypted (a key that is not configured, or
 * tampering).
 */
export function unseal(ring: KeyRing, key: Pick<IntegrationDoc, 'credentials_sealed'>): Credentials {
  return JSON.parse(ring.decrypt(key.credentials_sealed)) as Credentials;
}

/**
 * The decrypted credentials of the brand's primary active key for a provider (matching the country
 * where given), or null when the brand has none. For other areas that call a provider with the
 * brand's own key (the pin signup page's maps key). Throws when the stored value cannot be decrypted.
 */
export async function activeCredential(ring: KeyRing, q: KeyQuery): Promise<Credentials | null> {
  const key = brandKeyIn(await activeKeysOf(q.client_id, q.provider), q);
  return key ? unseal(ring, key) : null;
}

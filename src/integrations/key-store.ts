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

/** A key may serve a call for `country`: a key without a country serves any call, one with a country only calls for it. */
const servesCountry = (k: IntegrationDoc, country: string | null | undefined) => k.country_code === null || (!!country && k.country_code === country);

/** The order keys are tried in: the asked country's own keys first, then primary first, then the oldest. */
function preference(country: string | null | undefined) {
  return (a: IntegrationDoc, b: IntegrationDoc) =>
    Number(!!country && b.country_code === country) - Number(!!country && a.country_code === country) ||
    Number(b.is_primary) - Number(a.is_primary) ||
    a._id - b._id;
}

/** The brand's own active key for the provider that a call uses (its primary), or null. */
export async function brandKey(q: KeyQuery): Promise<IntegrationDoc | null> {
  const keys = await IntegrationModel.find({ client_id: q.client_id, brand_id: q.brand_id, provider_name: q.provider, is_active: true }).lean<IntegrationDoc[]>();
  return keys.filter((k) => servesCountry(k, q.country_code)).sort(preference(q.country_code))[0] ?? null;
}

/**
 * Keys other brands of the same client share with the pool (share_with_pool), for the provider and
 * country, in preference order. The pool never crosses clients (docs/integrations.md).
 */
export async function poolKeys(q: KeyQuery): Promise<IntegrationDoc[]> {
  const keys = await IntegrationModel.find({ client_id: q.client_id, provider_name: q.provider, is_active: true, share_with_pool: true }).lean<IntegrationDoc[]>();
  return keys.filter((k) => k.brand_id !== q.brand_id && servesCountry(k, q.country_code)).sort(preference(q.country_code));
}

/** The stored credentials of a key; throws when they cannot be decrypted (a key that is not configured, or tampering). */
export function unseal(ring: KeyRing, key: Pick<IntegrationDoc, 'credentials_sealed'>): Credentials {
  return JSON.parse(ring.decrypt(key.credentials_sealed)) as Credentials;
}

/**
 * The decrypted credentials of the brand's primary active key for a provider (matching the country
 * where given), or null when the brand has none. For other areas that call a provider with the
 * brand's own key (the pin signup page's maps key). Throws when the stored value cannot be decrypted.
 */
export async function activeCredential(ring: KeyRing, q: KeyQuery): Promise<Credentials | null> {
  const key = await brandKey(q);
  return key ? unseal(ring, key) : null;
}

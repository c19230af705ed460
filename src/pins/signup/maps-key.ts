import type { KeyQuery } from '../../integrations/active-credential';

/** A brand's maps credential, as the integrations area unseals it (its `activeCredential`). */
export type MapsCredentialLookup = (q: KeyQuery) => Promise<Record<string, unknown> | null>;

/**
 * The brand's own maps key for the signup page (`maps_byok_key_or_null`): the `browser_key` of its active maps
 * integration for the reservation's country, or null. Never the server key (`api_key`): whatever reaches the
 * page reaches anyone with a signup link, so only a key the provider restricts to the page's origin may. A key
 * that cannot be unsealed (a rotated-away encryption key) is treated as none: the page then offers the typed
 * address and "use my location", never an error for the end user.
 */
export function brandMapsKey(lookup: MapsCredentialLookup) {
  return async (q: { client_id: string; brand_id: number | null; country_code: string }): Promise<string | null> => {
    if (q.brand_id === null) return null;
    const credentials = await lookup({
      client_id: q.client_id,
      brand_id: q.brand_id,
      provider: 'maps',
      country_code: q.country_code,
    }).catch(() => null);
    return typeof credentials?.browser_key === 'string' ? credentials.browser_key : null;
  };
}

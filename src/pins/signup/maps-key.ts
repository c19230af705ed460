/**
 * The brand's own browser maps key for the signup page (`maps_byok_key_or_null`), or null. The key
 * lives with the brand's integration keys (the integrations area: `activeCredential(...)` in
 * src/integrations/active-credential.ts), which is not on this branch yet; the coordinator wires the
 * lookup here when the areas meet. Until then every brand has no key, and the signup page offers the
 * typed address and "use my location" instead of the map (it is built to work without one).
 */
export async function brandMapsKey(brandId: number): Promise<string | null> {
  void brandId;
  return null;
}

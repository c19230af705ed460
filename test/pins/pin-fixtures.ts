import { randomBytes, randomUUID } from 'node:crypto';
import { BrandModel } from '../../src/brands/brand.model';
import { PinModel } from '../../src/pins/pin.model';
import { indexPin } from '../../src/pins/search';
import { createClient, type TestApi } from '../support/harness';

const DAY = 86_400_000;

/**
 * The API's environment for the pin tests: with MEILISEARCH_URL set (a real Meilisearch), each run gets
 * its own index, so the same tests run unchanged against it; otherwise the built-in engine answers.
 */
export const pinTestEnv = (): Record<string, string> =>
  process.env.MEILISEARCH_URL ? { MEILISEARCH_INDEX: `pins_test_${randomBytes(4).toString('hex')}` } : {};

export interface PinSeed {
  country_code: string;
  name: string;
  lat: number;
  lng: number;
  brand_id?: number;
  business?: Record<string, unknown>;
  structured_address?: Record<string, unknown>;
  subscription?: { status: 'active' | 'lapsed'; expires_at: Date };
}

/** Writes pins as the claim would, and indexes them (the built-in engine: the pin change feed). */
export async function seedPins(api: TestApi, clientId: string, seeds: PinSeed[]) {
  for (const seed of seeds) {
    const pin = await PinModel.create({
      _id: `${seed.country_code}:${seed.name}`,
      country_code: seed.country_code,
      name: seed.name,
      client_id: clientId,
      brand_id: seed.brand_id ?? null,
      reservation_id: randomUUID(),
      gps: { lat: seed.lat, lng: seed.lng },
      structured_address: seed.structured_address ?? {},
      business: seed.business ?? {},
      subscription: seed.subscription ?? { status: 'active', expires_at: new Date(Date.now() + 365 * DAY) },
    });
    await indexPin(pin.toObject() as never, api.config, api.rt.engines.redis);
  }
}

/** A client with an active brand; its triple acting for the brand (X-Brand-Id) is how the tests call. */
export async function brandCaller(api: TestApi, admin: string, brandId: number, name: string) {
  const client = await createClient(api, admin, name);
  await BrandModel.create({
    _id: brandId,
    client_id: client.client_id,
    brand_name: name,
    slug: name.toLowerCase().replace(/\W+/g, '-'),
  });
  return {
    clientId: client.client_id as string,
    token: client.triple as string,
    headers: { 'X-Brand-Id': String(brandId) },
  };
}

export const lapsed = { status: 'lapsed' as const, expires_at: new Date(Date.now() + 365 * DAY) };
export const ended = { status: 'active' as const, expires_at: new Date(Date.now() - DAY) };

import type Redis from 'ioredis';
import type { JsonBody } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { iso } from '../lib/ids';
import { nameAvailability, MAX_PREVIEW_SUGGESTIONS, type NameAvailability } from './availability';
import { PinModel, type PinDoc } from './pin.model';
import { parsePinId } from './pin-name';
import { pinSearchFor, type PinSearchConfig, type SearchResponse } from './search';

/** The delivery payload (the contract's `Pin`). */
export function pinPayload(
  pin: Pick<PinDoc, 'country_code' | 'name' | 'gps' | 'structured_address' | 'business' | 'brand_id'> & {
    _id: string;
    updated_at: Date;
  },
) {
  return {
    pin_id: pin._id,
    country_code: pin.country_code,
    name: pin.name,
    gps: { lat: Number(pin.gps?.lat), lng: Number(pin.gps?.lng) },
    structured_address: pin.structured_address ?? {},
    business: pin.business ?? {},
    brand_id: pin.brand_id ?? null,
    updated_at: iso(pin.updated_at)!,
  };
}

/** A pin is served while its subscription is active and not past its end (docs/pins.md: how one lapses). */
export const isServed = (pin: Pick<PinDoc, 'subscription'>, now = new Date()) =>
  pin.subscription?.status === 'active' && !!pin.subscription.expires_at && pin.subscription.expires_at > now;

export interface PinsService {
  resolve(pinId: string): Promise<ReturnType<typeof pinPayload>>;
  search(body: JsonBody<'searchPins'>): Promise<SearchResponse>;
  preview(input: JsonBody<'previewPin'>): Promise<NameAvailability>;
}

export function createPinsService(config: PinSearchConfig, redis: Redis): PinsService {
  return {
    async resolve(id) {
      parsePinId(id);
      const pin = await PinModel.findById(id).lean();
      if (!pin || !isServed(pin)) throw AppError.notFound('Pin not found');
      return pinPayload(pin as never);
    },
    search: (body) => pinSearchFor(config, redis).search(body),
    preview: ({ name, country_code, count }) =>
      nameAvailability({ name, country_code, count: Math.min(count ?? 5, MAX_PREVIEW_SUGGESTIONS) }),
  };
}

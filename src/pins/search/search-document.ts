import type { PinDoc } from '../pin.model';

/**
 * The document the search engines hold for a pin: the delivery payload plus `_geo` (Meilisearch's geo
 * field) and the subscription, which the engines filter on so that search shows what resolve-pin serves.
 * `id` is Meilisearch's primary key (a pin id's `:` is not allowed there; the country has two letters,
 * so `NL-NAME` stays unique).
 */
export interface PinSearchDocument {
  id: string;
  pin_id: string;
  country_code: string;
  name: string;
  gps: { lat: number; lng: number };
  _geo: { lat: number; lng: number };
  structured_address: Record<string, unknown>;
  business: Record<string, unknown>;
  brand_id: number | null;
  updated_at: string;
  subscription_status: string;
  subscription_expires_at: number; // epoch milliseconds
}

export const FILTERABLE_ATTRIBUTES = [
  'pin_id',
  'country_code',
  'name',
  'brand_id',
  'business',
  'structured_address',
  '_geo',
  'subscription_status',
  'subscription_expires_at',
];
export const SORTABLE_ATTRIBUTES = [
  'pin_id',
  'country_code',
  'name',
  'brand_id',
  'updated_at',
  'business.name',
  'business.category',
  '_geo',
];
export const SEARCHABLE_ATTRIBUTES = ['name', 'business', 'structured_address', 'pin_id'];
/** What a hit shows: the internals (Meilisearch's id, the subscription) stay out. */
export const DISPLAYED_ATTRIBUTES = [
  'pin_id',
  'country_code',
  'name',
  'gps',
  '_geo',
  'structured_address',
  'business',
  'brand_id',
  'updated_at',
];

export const searchIdOf = (pinId: string) => pinId.replace(':', '-');

type PinLike = Pick<
  PinDoc,
  'country_code' | 'name' | 'gps' | 'structured_address' | 'business' | 'brand_id' | 'subscription'
> & {
  _id: string;
  updated_at?: Date;
};

export function toSearchDocument(pin: PinLike): PinSearchDocument {
  const gps = { lat: Number(pin.gps?.lat), lng: Number(pin.gps?.lng) };
  return {
    id: searchIdOf(pin._id),
    pin_id: pin._id,
    country_code: pin.country_code,
    name: pin.name,
    gps,
    _geo: gps,
    structured_address: (pin.structured_address ?? {}) as Record<string, unknown>,
    business: (pin.business ?? {}) as Record<string, unknown>,
    brand_id: pin.brand_id ?? null,
    updated_at: (pin.updated_at ?? new Date()).toISOString(),
    subscription_status: pin.subscription?.status ?? 'lapsed',
    subscription_expires_at: pin.subscription?.expires_at ? new Date(pin.subscription.expires_at).getTime() : 0,
  };
}

export interface FieldValues {
  present: boolean;
  values: unknown[];
}

/** The values at a dotted path; arrays along the way are flattened, as Meilisearch does. */
export function valuesAt(doc: unknown, path: string): FieldValues {
  let current: unknown[] = [doc];
  for (const key of path.split('.')) {
    const next: unknown[] = [];
    for (const v of current) {
      if (Array.isArray(v))
        v.forEach((x) => x && typeof x === 'object' && key in x && next.push((x as Record<string, unknown>)[key]));
      else if (v && typeof v === 'object' && key in v) next.push((v as Record<string, unknown>)[key]);
    }
    current = next;
  }
  return { present: current.length > 0, values: current.flatMap((v) => (Array.isArray(v) ? v : [v])) };
}

/** Whether `attribute` is covered by a setting's list: named, or nested under a named object. */
export const coveredBy = (list: string[], attribute: string) =>
  list.some((a) => a === attribute || attribute.startsWith(`${a}.`));

/** Haversine distance in meters, as Meilisearch computes `_geoDistance`. */
export function distanceMeters(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** valuesAt for one document, each path computed once (callers must not change the arrays). */
export function cachedValuesOf(doc: unknown): (path: string) => FieldValues {
  const cache = new Map<string, FieldValues>();
  return (path) => {
    let found = cache.get(path);
    if (!found) cache.set(path, (found = valuesAt(doc, path)));
    return found;
  };
}

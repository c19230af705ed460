// The country module alone: the package's index would load its ~150,000 cities too (src/locations/dataset.ts).
import Country from 'country-state-city/lib/cjs/country';
import { withoutMagic } from './faults';
import { Seed, slugify, titleCase } from './seed';

/** One place in the classic text-search wire format. */
export interface WirePlace {
  place_id: string;
  name: string;
  formatted_address: string;
  geometry: { location: { lat: number; lng: number } };
  types: string[];
  rating: number;
  user_ratings_total: number;
  business_status: 'OPERATIONAL';
  website?: string;
  international_phone_number?: string;
  photos: { photo_reference: string; height: number; width: number; html_attributions: string[] }[];
}

export const PAGE_SIZE = 20;
/** Places every location shares for a query (chains): they exercise de-duplication across locations. */
export const CHAINS_PER_QUERY = 2;

const ADJECTIVES = [
  'Golden',
  'Blue',
  'Royal',
  'Green',
  'Corner',
  'Urban',
  'Old Town',
  'Sunny',
  'Central',
  'Little',
  'Grand',
  'Happy',
];
const SUFFIXES = ['House', 'Co.', 'Studio', 'Shop', 'Place', 'Company', 'Works', 'Hub', 'Corner', 'Bros.'];
const STREETS = [
  'Main Street',
  'Market Square',
  'Station Road',
  'High Street',
  'Church Lane',
  'Park Avenue',
  'Mill Road',
  'Harbour Way',
];
const CHAIN_NAMES = ['Express', 'Direct', 'Group'];

function parseQuery(query: string): { what: string; where: string } {
  const clean = withoutMagic(query).toLowerCase();
  const at = clean.lastIndexOf(' in ');
  return at > 0 ? { what: clean.slice(0, at).trim(), where: clean.slice(at + 4).trim() } : { what: clean, where: '' };
}

function phoneFor(seed: Seed, region: string): string {
  const code = Country.getCountryByCode(region.toUpperCase())?.phonecode?.replace(/^\+/, '').split(/\D/)[0] || '1';
  return `+${code} ${seed.int(10, 99)} ${seed.int(100, 999)} ${seed.int(1000, 9999)}`;
}

function place(
  seed: Seed,
  name: string,
  what: string,
  where: string,
  region: string,
  lat: number,
  lng: number,
): WirePlace {
  const domain = `${slugify(name)}-${seed.hex(4)}.example`;
  const hasWebsite = seed.int(0, 9) > 1;
  const hasPhone = seed.int(0, 9) > 0;
  const city = titleCase(where.split(',')[0] || 'Town');
  const photos = Array.from({ length: seed.int(0, 2) }, (_, i) => ({
    photo_reference: `sbx-photo-${seed.id(24)}-${i}`,
    height: 600,
    width: 800,
    html_attributions: [],
  }));
  return {
    place_id: `ChIJ${seed.id(23)}`,
    name,
    formatted_address: [
      `${seed.int(1, 250)} ${seed.pick(STREETS)}`,
      `${seed.int(1000, 9999)} ${city}`,
      region.toUpperCase(),
    ].join(', '),
    geometry: {
      location: {
        lat: +(lat + seed.int(-200, 200) / 10_000).toFixed(6),
        lng: +(lng + seed.int(-200, 200) / 10_000).toFixed(6),
      },
    },
    types: [slugify(what).replace(/-/g, '_') || 'establishment', 'point_of_interest', 'establishment'],
    rating: seed.int(30, 50) / 10,
    user_ratings_total: seed.int(1, 900),
    business_status: 'OPERATIONAL',
    ...(hasWebsite ? { website: `https://${domain}/` } : {}),
    ...(hasPhone ? { international_phone_number: phoneFor(seed, region) } : {}),
    photos,
  };
}

/** What a query searches for (magic words removed, lower-case): the key of its openings. */
export const queryWhat = (query: string) => parseQuery(query).what;

/**
 * Every place the sandbox knows for one text search: a deterministic function of the query text
 * (magic words removed), the location bias (rounded to ~100 m), the region and the number of places
 * `opened` since (Openings below). Tests import it to compute exact expected counts.
 */
export function placesFor(query: string, lat: number, lng: number, region = 'us', opened = 0): WirePlace[] {
  const { what, where } = parseQuery(query);
  const noun = titleCase(what || 'business');
  const local = new Seed('local', what, where, lat.toFixed(3), lng.toFixed(3));
  const count = local.int(5, 45);
  const chains = Array.from({ length: CHAINS_PER_QUERY }, (_, i) => {
    const s = new Seed('chain', what, i);
    return place(s, `${noun} ${CHAIN_NAMES[i % CHAIN_NAMES.length]}`, what, '', region, lat, lng);
  });
  const locals = Array.from({ length: count }, (_, i) => {
    const s = new Seed('place', what, where, lat.toFixed(3), lng.toFixed(3), i);
    return place(s, `${s.pick(ADJECTIVES)} ${noun} ${s.pick(SUFFIXES)}`, what, where, region, lat, lng);
  });
  // Businesses that opened since: new places at every location of the query, after the ones it had.
  const openings = Array.from({ length: opened }, (_, i) => {
    const s = new Seed('opening', what, where, lat.toFixed(3), lng.toFixed(3), i);
    return place(s, `New ${s.pick(ADJECTIVES)} ${noun} ${s.pick(SUFFIXES)}`, what, where, region, lat, lng);
  });
  return [...chains, ...locals, ...openings];
}

/**
 * Businesses that open while the sandbox runs, so a test can make a repeated search (a watch's next run) find
 * something it did not find before: each opening adds one place at every location searched for the query's
 * subject (`bakery` for "bakery in Utrecht"). Deterministic: the n-th opening is always the same place.
 */
export class Openings {
  private readonly opened = new Map<string, number>();

  /** Opens `count` more businesses of the query's subject; answers how many are open now. */
  open(query: string, count = 1): number {
    const what = queryWhat(query);
    const now = (this.opened.get(what) ?? 0) + Math.max(0, Math.floor(count));
    this.opened.set(what, now);
    return now;
  }

  /** How many businesses of the query's subject have opened. */
  of(query: string): number {
    return this.opened.get(queryWhat(query)) ?? 0;
  }

  reset(): void {
    this.opened.clear();
  }
}

export interface PageToken {
  query: string;
  lat: number;
  lng: number;
  region: string;
  offset: number;
}

export const encodeToken = (t: PageToken) => Buffer.from(JSON.stringify(t)).toString('base64url');

export function decodeToken(token: string): PageToken | null {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PageToken;
    return typeof t.query === 'string' && Number.isFinite(t.offset) ? t : null;
  } catch {
    return null;
  }
}

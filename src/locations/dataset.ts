import fs from 'node:fs';
// The package's country and state modules, not its index: the index also loads the city module, which parses the
// ~150,000 cities into the heap at require time and keeps them there (see citiesByRegion).
import Country from 'country-state-city/lib/cjs/country';
import State from 'country-state-city/lib/cjs/state';
import type { IState } from 'country-state-city/lib/cjs/interface';

/**
 * The place dataset of the country-state-city package: countries → admin regions (states,
 * provinces) → cities. One searchable location is a city; a region without cities counts as one
 * location (its centre), and so does a country without regions.
 */
export interface Area {
  code: string;
  name: string;
  level: 'country' | 'region';
  country_code: string;
  location_count: number;
}

/** One place a maps-scrape job searches around. */
export interface JobLocation {
  name: string;
  region_code: string | null;
  region_name: string | null;
  lat: number;
  lng: number;
  /** City-level locations are searched in a small radius, region or country centres in a wide one. */
  radius_m: number;
}

/** The package's city rows: [name, countryCode, stateCode, latitude, longitude] (its city module's KEYS). */
const CITY_ROWS = require.resolve('country-state-city/lib/cjs/assets/city.json');
/** Joins a region's city names into one string; no name in the dataset holds it (checked as they are packed). */
const NAME_SEPARATOR = '\u0000';

/** A region's cities, in the dataset's order, packed into four objects however many cities it has. */
interface RegionCities {
  /** Their names, joined by NAME_SEPARATOR. */
  names: string;
  /** Their coordinates; NaN where the dataset has none. */
  lat: Float64Array;
  lng: Float64Array;
}

const num = (v: string | null | undefined) => (v ? Number(v) : NaN);

let citiesByRegion: Map<string, RegionCities> | undefined;

/**
 * The cities by region (`<country>-<state>`), read from the package's rows once. Packed because they stay in every
 * process for its life: as the package's objects (~150,000 of them, each with its strings: ~1.3 million heap
 * objects, 46 MB) every full collection of the heap had to mark them again, ~32 ms of a core more each time on
 * this machine (docs/performance.md, "... the place dataset out of the heap"). Packed, a region is four objects.
 */
function cityIndex(): Map<string, RegionCities> {
  if (citiesByRegion) return citiesByRegion;
  const rows = JSON.parse(fs.readFileSync(CITY_ROWS, 'utf8')) as (string | null)[][];
  const grouped = new Map<string, { names: string[]; lat: number[]; lng: number[] }>();
  for (const [name, countryCode, stateCode, latitude, longitude] of rows) {
    if (typeof name !== 'string' || name.includes(NAME_SEPARATOR))
      throw new Error(`country-state-city: a city row is not [name, country, state, lat, lng]: ${name}`);
    const key = `${countryCode}-${stateCode}`;
    let region = grouped.get(key);
    if (!region) grouped.set(key, (region = { names: [], lat: [], lng: [] }));
    region.names.push(name);
    region.lat.push(num(latitude));
    region.lng.push(num(longitude));
  }
  citiesByRegion = new Map();
  for (const [key, r] of grouped)
    citiesByRegion.set(key, {
      names: r.names.join(NAME_SEPARATOR),
      lat: Float64Array.from(r.lat),
      lng: Float64Array.from(r.lng),
    });
  return citiesByRegion;
}

const regionCode = (s: IState) => `${s.countryCode}-${s.isoCode}`;
const regionsOf = (countryCode: string) => State.getStatesOfCountry(countryCode);
/** Indexes the dataset's cities by region now (about 240 ms on 2 CPUs), instead of on the first job that needs them. */
export function prepareLocations(): number {
  return cityIndex().size;
}

const citiesOf = (s: IState): RegionCities | undefined => cityIndex().get(regionCode(s));
const regionLocationCount = (s: IState) => Math.max(1, citiesOf(s)?.lat.length ?? 0);

let countryCache: Area[] | undefined;

export function listCountries(): Area[] {
  countryCache ??= Country.getAllCountries().map((c) => {
    const regions = regionsOf(c.isoCode);
    return {
      code: c.isoCode,
      name: c.name,
      level: 'country' as const,
      country_code: c.isoCode,
      location_count: regions.length ? regions.reduce((n, s) => n + regionLocationCount(s), 0) : 1,
    };
  });
  return countryCache;
}

/** The regions of a country, or null when the dataset does not know the country. */
export function listRegions(countryCode: string): Area[] | null {
  if (!Country.getCountryByCode(countryCode)) return null;
  return regionsOf(countryCode).map((s) => ({
    code: regionCode(s),
    name: s.name,
    level: 'region' as const,
    country_code: countryCode,
    location_count: regionLocationCount(s),
  }));
}

export function countryExists(countryCode: string): boolean {
  return Boolean(Country.getCountryByCode(countryCode));
}

/** Accepts `NL-UT` and `UT`; answers the region codes the country does not have. */
export function unknownRegions(countryCode: string, codes: string[]): string[] {
  const known = new Set(regionsOf(countryCode).flatMap((s) => [regionCode(s), s.isoCode]));
  return codes.filter((c) => !known.has(c.toUpperCase()));
}

/** A region's cities that have coordinates, unpacked. */
function placedCities(r: RegionCities | undefined): { name: string; lat: number; lng: number }[] {
  if (!r) return [];
  const names = r.names.split(NAME_SEPARATOR);
  const out: { name: string; lat: number; lng: number }[] = [];
  for (let i = 0; i < names.length; i++)
    if (Number.isFinite(r.lat[i]) && Number.isFinite(r.lng[i]))
      out.push({ name: names[i], lat: r.lat[i], lng: r.lng[i] });
  return out;
}

/**
 * The locations of a maps-scrape job, deterministic for its parameters: the cities of the chosen
 * regions (all regions when none are named), taken region by region in turn so that a cap
 * (`max_locations`) still spreads the search over the whole area.
 */
export function expandLocations(
  countryCode: string,
  regionCodes: string[] = [],
  maxLocations?: number | null,
): JobLocation[] {
  const country = Country.getCountryByCode(countryCode);
  if (!country) return [];
  const wanted = new Set(regionCodes.map((c) => c.toUpperCase()));
  const regions = regionsOf(countryCode).filter(
    (s) => !wanted.size || wanted.has(regionCode(s)) || wanted.has(s.isoCode),
  );
  if (!regions.length) {
    return [
      {
        name: country.name,
        region_code: null,
        region_name: null,
        lat: num(country.latitude),
        lng: num(country.longitude),
        radius_m: 50_000,
      },
    ];
  }
  const perRegion: JobLocation[][] = regions.map((s) => {
    const cities = placedCities(citiesOf(s));
    if (!cities.length) {
      const lat = num(s.latitude);
      const lng = num(s.longitude);
      return [
        {
          name: s.name,
          region_code: regionCode(s),
          region_name: s.name,
          lat: lat || num(country.latitude),
          lng: lng || num(country.longitude),
          radius_m: 50_000,
        },
      ];
    }
    return cities.map((c) => ({
      name: c.name,
      region_code: regionCode(s),
      region_name: s.name,
      lat: c.lat,
      lng: c.lng,
      radius_m: 10_000,
    }));
  });
  const cap = maxLocations ?? Infinity;
  const out: JobLocation[] = [];
  for (let round = 0; out.length < cap; round++) {
    let added = false;
    for (const list of perRegion) {
      if (round < list.length && out.length < cap) {
        out.push(list[round]);
        added = true;
      }
    }
    if (!added) break;
  }
  return out;
}

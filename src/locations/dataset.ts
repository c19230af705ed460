import { City, Country, State, type ICity, type IState } from 'country-state-city';

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

let citiesByRegion: Map<string, ICity[]> | undefined;

function cityIndex(): Map<string, ICity[]> {
  if (!citiesByRegion) {
    citiesByRegion = new Map();
    for (const city of City.getAllCities()) {
      const key = `${city.countryCode}-${city.stateCode}`;
      const list = citiesByRegion.get(key);
      if (list) list.push(city);
      else citiesByRegion.set(key, [city]);
    }
  }
  return citiesByRegion;
}

const regionCode = (s: IState) => `${s.countryCode}-${s.isoCode}`;
const regionsOf = (countryCode: string) => State.getStatesOfCountry(countryCode);
/** Indexes the dataset's cities by region now (about 150 ms), instead of on the first job that needs them. */
export function prepareLocations(): number {
  return cityIndex().size;
}

const citiesOf = (s: IState) => cityIndex().get(regionCode(s)) ?? [];
const regionLocationCount = (s: IState) => Math.max(1, citiesOf(s).length);

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

const num = (v: string | null | undefined) => (v ? Number(v) : NaN);

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
    const cities = citiesOf(s).filter((c) => Number.isFinite(num(c.latitude)) && Number.isFinite(num(c.longitude)));
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
      lat: num(c.latitude),
      lng: num(c.longitude),
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

import { ended, lapsed, type PinSeed } from './pin-fixtures';

/** Five served pins and two that are not (a lapsed subscription, one past its end): the grammar table's world. */
export const SEARCH_PINS: PinSeed[] = [
  {
    country_code: 'NL',
    name: 'BAKKERIJ-DE-ZON',
    lat: 52.0907,
    lng: 5.1214,
    brand_id: 901,
    structured_address: { address_road: 'Oudegracht', address_settlement: 'Utrecht' },
    business: { name: 'Bakkerij de Zon', category: 'Bakery', rating: 4.5, tags: ['bread', 'cake'], email: null },
  },
  {
    country_code: 'NL',
    name: 'KAASHUIS',
    lat: 52.3731,
    lng: 4.8922,
    brand_id: 901,
    structured_address: { address_settlement: 'Amsterdam' },
    business: { name: 'Kaashuis', category: 'Cheese', rating: 4.0, tags: ['cheese'], email: 'info@kaas.test' },
  },
  {
    country_code: 'NL',
    name: 'FIETS-CENTRUM',
    lat: 52.0894,
    lng: 5.11,
    brand_id: 901,
    structured_address: { address_settlement: 'Utrecht' },
    business: { name: 'Fiets Centrum', category: 'Bikes', rating: 3.2, tags: [] },
  },
  {
    country_code: 'BE',
    name: 'FRITUUR-ANTWERPEN',
    lat: 51.2194,
    lng: 4.4025,
    brand_id: 902,
    structured_address: { address_settlement: 'Antwerpen' },
    business: { name: 'Frituur', category: 'Snacks', rating: 4.8, tags: ['fries'] },
  },
  {
    country_code: 'DE',
    name: 'BACKHAUS-BERLIN',
    lat: 52.52,
    lng: 13.405,
    brand_id: 902,
    structured_address: { address_settlement: 'Berlin' },
    business: { name: 'Backhaus', category: 'Bakery', rating: 3.9 },
  },
  {
    country_code: 'NL',
    name: 'LAPSED-BAKERY',
    lat: 52.09,
    lng: 5.12,
    business: { category: 'Bakery', rating: 5 },
    subscription: lapsed,
  },
  {
    country_code: 'NL',
    name: 'ENDED-BAKERY',
    lat: 52.09,
    lng: 5.12,
    business: { category: 'Bakery', rating: 5 },
    subscription: ended,
  },
];

const ZON = 'NL:BAKKERIJ-DE-ZON';
const KAAS = 'NL:KAASHUIS';
const FIETS = 'NL:FIETS-CENTRUM';
const FRIT = 'BE:FRITUUR-ANTWERPEN';
const BACK = 'DE:BACKHAUS-BERLIN';

/** Filter → the pins it selects. Meilisearch's grammar, operator by operator, then combinations. */
export const FILTER_CASES: Array<[string, unknown, string[]]> = [
  ['equality', 'country_code = NL', [ZON, KAAS, FIETS]],
  ['equality ignores case', 'country_code = nl', [ZON, KAAS, FIETS]],
  ['inequality', 'country_code != NL', [FRIT, BACK]],
  ['greater than', 'business.rating > 4', [ZON, FRIT]],
  ['at least', 'business.rating >= 4', [ZON, KAAS, FRIT]],
  ['less than', 'business.rating < 3.9', [FIETS]],
  ['at most', 'business.rating <= 3.9', [FIETS, BACK]],
  ['range TO', 'business.rating 3.5 TO 4.5', [ZON, KAAS, BACK]],
  ['IN', 'business.category IN [Bakery, Cheese]', [ZON, KAAS, BACK]],
  ['NOT IN', 'business.category NOT IN [Bakery, Cheese]', [FIETS, FRIT]],
  ['an array matches by element', 'business.tags = bread', [ZON]],
  ['EXISTS', 'business.email EXISTS', [ZON, KAAS]],
  ['NOT EXISTS', 'business.email NOT EXISTS', [FIETS, FRIT, BACK]],
  ['IS NULL', 'business.email IS NULL', [ZON]],
  ['IS NOT NULL', 'business.email IS NOT NULL', [KAAS, FIETS, FRIT, BACK]],
  ['IS EMPTY', 'business.tags IS EMPTY', [FIETS]],
  ['IS NOT EMPTY', 'business.tags IS NOT EMPTY', [ZON, KAAS, FRIT, BACK]],
  ['NOT', 'NOT country_code = NL', [FRIT, BACK]],
  ['AND', 'country_code = NL AND business.rating > 4', [ZON]],
  ['OR', 'country_code = BE OR business.category = Cheese', [KAAS, FRIT]],
  ['parentheses', '(country_code = NL OR country_code = DE) AND business.category = Bakery', [ZON, BACK]],
  [
    'AND binds tighter than OR',
    'country_code = NL OR country_code = DE AND business.category = Bakery',
    [ZON, KAAS, FIETS, BACK],
  ],
  ['NOT of a group', 'NOT (country_code = NL OR country_code = BE)', [BACK]],
  ['double-quoted value', 'business.name = "Bakkerij de Zon"', [ZON]],
  ['single-quoted value', "business.name = 'Fiets Centrum'", [FIETS]],
  ['quoted pin id', 'pin_id = "NL:KAASHUIS"', [KAAS]],
  ['numbers', 'brand_id = 902', [FRIT, BACK]],
  ['_geoRadius', '_geoRadius(52.09, 5.12, 2000)', [ZON, FIETS]],
  ['_geoBoundingBox', '_geoBoundingBox([52.6, 5.2], [52.0, 4.8])', [ZON, KAAS, FIETS]],
  ['geo and fields', '_geoRadius(52.09, 5.12, 2000) AND business.category = Bikes', [FIETS]],
  [
    'array form: AND of ORs',
    ['country_code = NL', ['business.category = Cheese', 'business.category = Bikes']],
    [KAAS, FIETS],
  ],
  ['array form: strings only', ['country_code = NL', 'business.rating > 4'], [ZON]],
];

/** Filters Meilisearch refuses (400 invalid_search_filter); the built-in engine must refuse them too. */
export const MALFORMED_FILTERS: Array<[string, unknown]> = [
  ['no value', 'country_code ='],
  ['no operator', 'country_code NL'],
  ['unclosed parenthesis', '(country_code = NL'],
  ['dangling AND', 'country_code = NL AND'],
  ['leading OR', 'OR country_code = NL'],
  ['two expressions without a connective', 'country_code = NL country_code = BE'],
  ['unclosed IN list', 'business.category IN [Bakery'],
  ['unclosed quote', 'country_code = "NL'],
  ['_geoRadius with two arguments', '_geoRadius(52, 5)'],
  ['_geoRadius latitude out of range', '_geoRadius(100, 5, 10)'],
  ['_geoBoundingBox with one point', '_geoBoundingBox([52, 5])'],
  ['_geo as a field', '_geo = 1'],
  ['an attribute that is not filterable', 'rating = 5'],
  ['IS without NULL or EMPTY', 'business.email IS'],
];

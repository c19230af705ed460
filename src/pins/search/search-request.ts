import { parseFilterInput, filterFields, type FilterNode } from './filter-parser';
import { searchError } from './search-error';
import { FILTERABLE_ATTRIBUTES, SORTABLE_ATTRIBUTES, coveredBy } from './search-document';

/** A search body checked and normalised the way Meilisearch reads it, for the built-in engine. */
export interface SearchRequest {
  q: string;
  filter: FilterNode | null;
  sort: SortRule[];
  facets: string[];
  attributesToRetrieve: string[];
  matchingStrategy: 'last' | 'all';
  paging: { mode: 'offset'; limit: number; offset: number } | { mode: 'page'; page: number; hitsPerPage: number };
}

export type SortRule =
  { kind: 'field'; field: string; desc: boolean } | { kind: 'geo'; lat: number; lng: number; desc: boolean };

const SUPPORTED = new Set([
  'q',
  'filter',
  'sort',
  'facets',
  'attributesToRetrieve',
  'limit',
  'offset',
  'page',
  'hitsPerPage',
  'matchingStrategy',
]);
/**
 * Meilisearch search parameters the built-in engine does not implement (highlighting, ranking scores, vectors,
 * ...).
 */
const MEILISEARCH_ONLY = new Set([
  'attributesToHighlight',
  'highlightPreTag',
  'highlightPostTag',
  'attributesToCrop',
  'cropLength',
  'cropMarker',
  'showMatchesPosition',
  'showRankingScore',
  'showRankingScoreDetails',
  'rankingScoreThreshold',
  'attributesToSearchOn',
  'distinct',
  'vector',
  'hybrid',
  'retrieveVectors',
  'locales',
]);

const filterableList = () => FILTERABLE_ATTRIBUTES.slice().sort().join(', ');
const sortableList = () => SORTABLE_ATTRIBUTES.slice().sort().join(', ');
const quoted = (name: string) => `\`${name}\``;

function nonNegativeInt(
  body: Record<string, unknown>,
  key: string,
  code: Parameters<typeof searchError>[0],
  fallback: number,
): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw searchError(
      code,
      `Invalid value type at \`.${key}\`: expected a positive integer, but found ${JSON.stringify(v)}.`,
    );
  return v;
}

function stringList(
  body: Record<string, unknown>,
  key: string,
  code: Parameters<typeof searchError>[0],
): string[] | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw searchError(code, `Invalid value type at \`.${key}\`: expected an array of strings.`);
  return v as string[];
}

/** `_geoPoint(lat, lng)`, split by hand (a tiny fixed shape). */
function geoPoint(expr: string): { lat: number; lng: number } | null {
  if (!expr.startsWith('_geoPoint(') || !expr.endsWith(')')) return null;
  const parts = expr.slice('_geoPoint('.length, -1).split(',');
  if (parts.length !== 2) return null;
  const [lat, lng] = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  return { lat, lng };
}

function parseSort(rules: string[]): SortRule[] {
  return rules.map((rule, i) => {
    const at = rule.lastIndexOf(':');
    const direction = at < 0 ? '' : rule.slice(at + 1);
    const target = at < 0 ? rule : rule.slice(0, at);
    if (direction !== 'asc' && direction !== 'desc') {
      throw searchError(
        'invalid_search_sort',
        `Invalid value at \`.sort[${i}]\`: Invalid syntax for the sort parameter: ` +
          `expected expression ending by \`:asc\` or \`:desc\`, found \`${rule}\`.`,
      );
    }
    const desc = direction === 'desc';
    if (target.startsWith('_geoPoint(')) {
      const point = geoPoint(target);
      if (!point)
        throw searchError(
          'invalid_search_sort',
          `Invalid value at \`.sort[${i}]\`: the \`_geoPoint\` parameter expects two numbers, ` +
            `a latitude (-90..90) and a longitude (-180..180): \`${rule}\`.`,
        );
      return { kind: 'geo' as const, ...point, desc };
    }
    if (target === '_geo' || target === '_geoDistance' || target === '_geoRadius' || target === '_geoBoundingBox') {
      throw searchError(
        'invalid_search_sort',
        `Invalid value at \`.sort[${i}]\`: \`${target}\` is a reserved keyword ` +
          "and thus can't be used as a sort expression. " +
          'Use the _geoPoint(latitude, longitude) built-in rule to sort on _geo field coordinates.',
      );
    }
    if (!SORTABLE_ATTRIBUTES.includes(target)) {
      throw searchError(
        'invalid_search_sort',
        `Attribute \`${target}\` is not sortable. Available sortable attributes are: \`${sortableList()}\`.`,
      );
    }
    return { kind: 'field' as const, field: target, desc };
  });
}

export function parseSearchRequest(body: Record<string, unknown>): SearchRequest {
  for (const key of Object.keys(body)) {
    if (MEILISEARCH_ONLY.has(key))
      throw searchError(
        'bad_request',
        `\`${key}\` is not supported by the built-in search engine (set MEILISEARCH_URL to use Meilisearch).`,
      );
    if (!SUPPORTED.has(key))
      throw searchError(
        'bad_request',
        `Unknown field \`${key}\`: expected one of ${[...SUPPORTED, ...MEILISEARCH_ONLY].map(quoted).join(', ')}`,
      );
  }
  if (body.q !== undefined && body.q !== null && typeof body.q !== 'string')
    throw searchError('invalid_search_q', 'Invalid value type at `.q`: expected a string.');

  const filter = parseFilterInput(body.filter);
  for (const field of filterFields(filter)) {
    if (!coveredBy(FILTERABLE_ATTRIBUTES, field)) {
      throw searchError(
        'invalid_search_filter',
        `Attribute \`${field}\` is not filterable. Available filterable attributes are: \`${filterableList()}\`.`,
      );
    }
  }
  let facets = stringList(body, 'facets', 'invalid_search_facets') ?? [];
  if (facets.includes('*')) facets = FILTERABLE_ATTRIBUTES.filter((a) => a !== '_geo');
  for (const facet of facets) {
    if (!coveredBy(FILTERABLE_ATTRIBUTES, facet) || facet === '_geo') {
      throw searchError(
        'invalid_search_facets',
        `Invalid facet distribution, attribute \`${facet}\` is not filterable. ` +
          `The available filterable attributes are \`${filterableList()}\`.`,
      );
    }
  }
  const strategy = body.matchingStrategy ?? 'last';
  if (strategy !== 'last' && strategy !== 'all' && strategy !== 'frequency') {
    throw searchError(
      'invalid_search_matching_strategy',
      'Unknown value at `.matchingStrategy`: expected one of `last`, `all`, `frequency`.',
    );
  }
  const pageMode =
    (body.page !== undefined && body.page !== null) || (body.hitsPerPage !== undefined && body.hitsPerPage !== null);
  return {
    q: typeof body.q === 'string' ? body.q : '',
    filter,
    sort: parseSort(stringList(body, 'sort', 'invalid_search_sort') ?? []),
    facets,
    attributesToRetrieve: stringList(body, 'attributesToRetrieve', 'invalid_search_attributes_to_retrieve') ?? ['*'],
    matchingStrategy: strategy === 'all' ? 'all' : 'last',
    paging: pageMode
      ? {
          mode: 'page',
          page: nonNegativeInt(body, 'page', 'invalid_search_page', 1),
          hitsPerPage: nonNegativeInt(body, 'hitsPerPage', 'invalid_search_hits_per_page', 20),
        }
      : {
          mode: 'offset',
          limit: nonNegativeInt(body, 'limit', 'invalid_search_limit', 20),
          offset: nonNegativeInt(body, 'offset', 'invalid_search_offset', 0),
        },
  };
}

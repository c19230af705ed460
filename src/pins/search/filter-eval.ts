import type { FilterNode } from './filter-parser';
import { distanceMeters, valuesAt, type FieldValues } from './search-document';

/** The values at a field of the document being checked (the in-memory index passes a cached one). */
export type ValuesOf = (field: string) => FieldValues;

/**
 * Evaluates a parsed filter on a search document with Meilisearch's semantics: `=`/`!=`/IN compare
 * strings case-insensitively and numbers numerically (`10` matches 10 and "10"); ranges apply to numbers;
 * an array field matches when one element does; NOT and `!=` also match documents without the field.
 */
export function matchesFilter(
  node: FilterNode,
  doc: unknown,
  valuesOf: ValuesOf = (field) => valuesAt(doc, field),
): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every((c) => matchesFilter(c, doc, valuesOf));
    case 'or':
      return node.children.some((c) => matchesFilter(c, doc, valuesOf));
    case 'not':
      return !matchesFilter(node.child, doc, valuesOf);
    case 'compare':
      if (node.op === '=') return valuesOf(node.field).values.some((v) => equalsToken(v, node.value));
      if (node.op === '!=') return !valuesOf(node.field).values.some((v) => equalsToken(v, node.value));
      return numericMatch(valuesOf, node.field, (n) => compare(n, node.op, Number(node.value)), node.value);
    case 'range': {
      const from = Number(node.from);
      const to = Number(node.to);
      return numericMatch(valuesOf, node.field, (n) => n >= from && n <= to, node.from, node.to);
    }
    case 'in':
      return valuesOf(node.field).values.some((v) => node.values.some((t) => equalsToken(v, t)));
    case 'exists':
      return valuesOf(node.field).present;
    case 'isNull':
      return valuesOf(node.field).values.some((v) => v === null);
    case 'isEmpty': {
      const { present, values } = valuesOf(node.field);
      return (
        present &&
        (values.length === 0 ||
          values.some((v) => v === '' || (typeof v === 'object' && v !== null && Object.keys(v).length === 0)))
      );
    }
    case 'geoRadius': {
      const geo = geoOf(valuesOf);
      return geo !== null && distanceMeters({ lat: node.lat, lng: node.lng }, geo) <= node.meters;
    }
    case 'geoBox': {
      const geo = geoOf(valuesOf);
      if (!geo || geo.lat > node.top || geo.lat < node.bottom) return false;
      // A box whose left edge is east of its right edge crosses the antimeridian.
      return node.left <= node.right
        ? geo.lng >= node.left && geo.lng <= node.right
        : geo.lng >= node.left || geo.lng <= node.right;
    }
  }
}

const numberOf = (token: string): number | null =>
  token.trim() !== '' && Number.isFinite(Number(token)) ? Number(token) : null;

function equalsToken(value: unknown, token: string): boolean {
  if (typeof value === 'number') return numberOf(token) === value;
  if (typeof value === 'string') return value.toLowerCase() === token.toLowerCase();
  if (typeof value === 'boolean') return String(value) === token.toLowerCase();
  return false;
}

function numericMatch(valuesOf: ValuesOf, field: string, test: (n: number) => boolean, ...tokens: string[]): boolean {
  if (tokens.some((t) => numberOf(t) === null)) return false;
  return valuesOf(field).values.some((v) => typeof v === 'number' && test(v));
}

function compare(n: number, op: string, bound: number): boolean {
  return op === '>' ? n > bound : op === '>=' ? n >= bound : op === '<' ? n < bound : n <= bound;
}

function geoOf(valuesOf: ValuesOf): { lat: number; lng: number } | null {
  const [geo] = valuesOf('_geo').values as Array<{ lat?: unknown; lng?: unknown } | undefined>;
  const lat = Number(geo?.lat);
  const lng = Number(geo?.lng);
  return geo && Number.isFinite(lat) && Number.isFinite(lng) ? { lat, lng } : null;
}

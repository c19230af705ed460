import type { FilterNode } from './filter-parser';

/**
 * The MongoDB query the built-in engine pushes down for a filter: a SUPERSET of the matching pins (the
 * exact filter then runs in process, see filter-eval.ts). Pushed down: equality, IN, ranges, EXISTS and
 * geo areas as a latitude/longitude box, joined by AND/OR. Not pushed down (left to the exact check):
 * NOT, `!=`, IS NULL/EMPTY, and anything on a field whose stored form differs from the search form.
 * Fields stored upper-case (pin id, country, name) compare exactly on the upper-cased value; others use a
 * case-insensitive anchored regex, which is what Meilisearch's case-insensitive equality needs.
 */
export type MongoQuery = Record<string, unknown>;
type Query = MongoQuery;
const ALL: Query = {};

const STORED_PATH: Record<string, string> = { pin_id: '_id', _geo: 'gps', subscription_status: 'subscription.status' };
const UPPER_CASE_FIELDS = new Set(['pin_id', 'country_code', 'name']);
const NOT_PUSHED = new Set(['updated_at', 'subscription_expires_at', 'gps', 'id']);

const storedPath = (field: string) => {
  const [head, ...rest] = field.split('.');
  return [STORED_PATH[head] ?? head, ...rest].join('.');
};
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const numberOf = (token: string): number | null =>
  token.trim() !== '' && Number.isFinite(Number(token)) ? Number(token) : null;

function equalityValues(field: string, tokens: string[]): unknown[] {
  const out: unknown[] = [];
  for (const t of tokens) {
    if (UPPER_CASE_FIELDS.has(field)) out.push(t.toUpperCase());
    else out.push(new RegExp(`^${escapeRegex(t)}$`, 'i'));
    const n = numberOf(t);
    if (n !== null) out.push(n);
    if (t.toLowerCase() === 'true' || t.toLowerCase() === 'false') out.push(t.toLowerCase() === 'true');
  }
  return out;
}

const isAll = (q: Query) => Object.keys(q).length === 0;

export function toMongoFilter(node: FilterNode | null): Query {
  if (!node) return ALL;
  switch (node.kind) {
    case 'and': {
      const parts = node.children.map(toMongoFilter).filter((q) => !isAll(q));
      return parts.length === 0 ? ALL : parts.length === 1 ? parts[0] : { $and: parts };
    }
    case 'or': {
      const parts = node.children.map(toMongoFilter);
      return parts.some(isAll) ? ALL : { $or: parts };
    }
    case 'compare': {
      if (NOT_PUSHED.has(node.field.split('.')[0]) || node.op === '!=') return ALL;
      const path = storedPath(node.field);
      if (node.op === '=') return { [path]: { $in: equalityValues(node.field, [node.value]) } };
      const n = numberOf(node.value);
      if (n === null) return ALL;
      const op = { '>': '$gt', '>=': '$gte', '<': '$lt', '<=': '$lte' }[node.op];
      return { [path]: { [op]: n } };
    }
    case 'range': {
      const from = numberOf(node.from);
      const to = numberOf(node.to);
      if (NOT_PUSHED.has(node.field.split('.')[0]) || from === null || to === null) return ALL;
      return { [storedPath(node.field)]: { $gte: from, $lte: to } };
    }
    case 'in':
      if (NOT_PUSHED.has(node.field.split('.')[0])) return ALL;
      return { [storedPath(node.field)]: { $in: equalityValues(node.field, node.values) } };
    case 'exists':
      if (NOT_PUSHED.has(node.field.split('.')[0])) return ALL;
      return { [storedPath(node.field)]: { $exists: true } };
    case 'geoRadius': {
      // One degree of latitude is ~111.2 km; longitude shrinks with the cosine (wide near the poles).
      const dLat = node.meters / 111_000 + 1e-6;
      const cos = Math.cos((node.lat * Math.PI) / 180);
      if (Math.abs(node.lat) + dLat >= 89 || cos < 0.01)
        return { 'gps.lat': { $gte: node.lat - dLat, $lte: node.lat + dLat } };
      const dLng = dLat / cos;
      if (node.lng - dLng < -180 || node.lng + dLng > 180)
        return { 'gps.lat': { $gte: node.lat - dLat, $lte: node.lat + dLat } };
      return {
        'gps.lat': { $gte: node.lat - dLat, $lte: node.lat + dLat },
        'gps.lng': { $gte: node.lng - dLng, $lte: node.lng + dLng },
      };
    }
    case 'geoBox':
      if (node.left > node.right) return { 'gps.lat': { $gte: node.bottom, $lte: node.top } };
      return { 'gps.lat': { $gte: node.bottom, $lte: node.top }, 'gps.lng': { $gte: node.left, $lte: node.right } };
    default:
      return ALL; // not, isNull, isEmpty: decided by the exact check
  }
}

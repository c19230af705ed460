import type { QueryFilter } from 'mongoose';
import type { QueryParams, Schemas } from '../../lib/contract-types';
import { AppError } from '../../lib/errors';
import { ResourceModel, type ResourceType } from '../resources/resource.model';
import { MAX_TIME, badCursor, decodeCursor, encodeCursor, flagKey, type Position } from './cursor';
import { parseFlagFilter } from '../resources/flags';
import { csv } from '../resources/refs';
import { resourceView, type StoredResource } from '../resources/view';

/**
 * The list and sync of one tenant's resources of one type (GET /idap/{resource_type}): pages in (modified_at, _id)
 * order, read up to a settle bound `settleMs` behind now, from a position a cursor carries. Why this loses nothing
 * while jobs write and repeats nothing unchanged is argued in docs/idap.md ("Why a sync loses nothing"); the writes'
 * side of it is stamped-writes.ts.
 */

/** A listing's query, as the contract declares it (its `format` is the routes' to read). */
export type ListQuery = QueryParams<'listResources'>;

/**
 * Where a listing starts and the flag filter it applies: a cursor's position and filter (the request may repeat
 * the filter, not change it), else `modified_since` (inclusive) or before everything, with the request's filter.
 */
function startOf(type: ResourceType, query: ListQuery): { from: Position; flags: string } {
  if (query.cursor !== undefined) {
    if (query.modified_since !== undefined) {
      throw AppError.invalid('Give cursor or modified_since, not both', [
        { location: 'query', field: 'modified_since', message: 'not with cursor (the cursor says where to go on)' },
      ]);
    }
    const { at, id, flags } = decodeCursor(query.cursor, type);
    if (query.flags !== undefined && flagKey(query.flags) !== flags)
      throw badCursor(`it was issued for flags=${flags}; send those flags or none`);
    return { from: { at, id }, flags };
  }
  const flags = flagKey(query.flags);
  if (query.modified_since !== undefined) {
    const since = Date.parse(query.modified_since);
    if (!Number.isFinite(since) || Math.abs(since) > MAX_TIME) {
      throw AppError.invalid('modified_since is not a date-time', [
        { location: 'query', field: 'modified_since', message: 'must be an RFC 3339 date-time' },
      ]);
    }
    return { from: { at: since - 1, id: null }, flags };
  }
  return { from: { at: null, id: null }, flags };
}

/** What a listing reads: from where, with which flag filter (normalised), up to which bound, in which scope. */
function listingOf(clientId: string, type: ResourceType, query: ListQuery, settleMs: number) {
  const { from, flags } = startOf(type, query);
  const { require, exclude } = parseFlagFilter(flags);
  const flagFilter: Record<string, string[]> = {};
  if (require.length) flagFilter.$all = require;
  if (exclude.length) flagFilter.$nin = exclude;
  const scope = {
    client_id: clientId,
    resource_type: type,
    ...(Object.keys(flagFilter).length ? { flags: flagFilter } : {}),
  };
  return { from, flags, bound: Date.now() - settleMs, scope };
}

/**
 * Every resource the listing of `query` would page through, up to the settle bound, in the same order, as two
 * database cursors over the same index ranges (the rest of the start's millisecond, then later ones) read as the
 * caller takes them: what a download (format csv or jsonl) writes a row at a time, never holding the set. The
 * query is checked (a cursor of another type, 422) before the first resource is asked for. A reader that stops
 * early closes the cursor.
 */
export function exportResources(
  clientId: string,
  type: ResourceType,
  query: ListQuery,
  settleMs: number,
): AsyncIterable<StoredResource> {
  const { from, bound, scope } = listingOf(clientId, type, query, settleMs);
  const ranges: QueryFilter<StoredResource>[] = [];
  if (from.at !== null && from.id !== null && from.at <= bound)
    ranges.push({ ...scope, modified_at: new Date(from.at), _id: { $gt: from.id } });
  if (from.at === null || from.at < bound) {
    const after = from.at === null ? {} : { $gt: new Date(from.at) };
    ranges.push({ ...scope, modified_at: { ...after, $lte: new Date(bound) } });
  }
  return (async function* () {
    for (const filter of ranges) {
      const cursor = ResourceModel.find(filter)
        .sort({ modified_at: 1, _id: 1 })
        .batchSize(EXPORT_BATCH)
        .lean<StoredResource>()
        .cursor();
      try {
        for await (const doc of cursor) yield doc as StoredResource;
      } finally {
        await cursor.close();
      }
    }
  })();
}

/** Resources a download's database cursor reads at a time. */
const EXPORT_BATCH = 500;

/**
 * One page of the tenant's resources of `type` after the query's position, up to the settle bound (now − settleMs),
 * and the cursor that goes on: after the page's last resource while more follow, else at the bound, where a later
 * call answers what changed since.
 */
export async function listResources(
  clientId: string,
  type: ResourceType,
  query: ListQuery,
  settleMs: number,
): Promise<Schemas['ResourcePage']> {
  const { from, flags, bound, scope } = listingOf(clientId, type, query, settleMs);
  const limit = query.limit ?? 20;
  const docs: StoredResource[] = [];
  // Two ranges of the (client, type, modified_at, _id) index: the rest of the position's millisecond, then later ones.
  if (from.at !== null && from.id !== null && from.at <= bound) {
    docs.push(
      ...(await ResourceModel.find({ ...scope, modified_at: new Date(from.at), _id: { $gt: from.id } })
        .sort({ _id: 1 })
        .limit(limit + 1)
        .lean<StoredResource[]>()),
    );
  }
  if (docs.length <= limit && (from.at === null || from.at < bound)) {
    const after = from.at === null ? {} : { $gt: new Date(from.at) };
    docs.push(
      ...(await ResourceModel.find({ ...scope, modified_at: { ...after, $lte: new Date(bound) } })
        .sort({ modified_at: 1, _id: 1 })
        .limit(limit + 1 - docs.length)
        .lean<StoredResource[]>()),
    );
  }
  const page = docs.slice(0, limit);
  const hasMore = docs.length > limit;
  const last = page[page.length - 1];
  const next: Position = hasMore
    ? { at: last.modified_at.getTime(), id: last._id }
    : // Everything up to the bound has been read; a position already past it (another process's clock) stays.
      from.at !== null && from.at > bound
      ? from
      : { at: bound, id: null };
  const fields = csv(query.fields);
  return {
    resource_type: type,
    count: page.length,
    has_more: hasMore,
    next_cursor: encodeCursor({ v: 1, type, flags, at: next.at!, id: next.id }),
    items: page.map((d) => resourceView(d, fields)),
  };
}

import type { JsonBody, QueryParams, Schemas } from '../lib/contract-types';
import { mediaNotSearchable } from '../media/media.service';
import type { RunLocked } from '../lib/locks';
import type { ResourceType } from './resources/resource.model';
import { batchGet } from './resources/batch';
import { changeFlags, parseFlagFilter, type FlagChange } from './resources/flags';
import { cacheLookups } from '../lib/metrics';
import type { IdapReads } from './search/index-reads';
import { newSearchTrace, type SearchTrace } from './search/search-trace';
import { csv } from './resources/refs';
import { searchResources } from './search/search';
import { INDEX_LAYOUT } from './search/search-index.model';
import { resourcesDownload, type DownloadFormat } from './sync/export';
import { exportResources, listResources, type ListQuery } from './sync/sync';

/** A search's query, as the contract declares it (its `format` is the routes' to read). */
export type SearchQuery = QueryParams<'searchResources'>;

/** `flags`: names a result must carry, `!name` ones it must not; `rejected` is left out unless asked for. */
export function flagFilter(flags: string | undefined): { require: string[]; exclude: string[] } {
  const { require, exclude } = parseFlagFilter(flags);
  if (!require.includes('rejected') && !exclude.includes('rejected')) exclude.push('rejected');
  return { require, exclude };
}

/** Searches answered from the process's cache alone (hit), with reads from the database (miss), or uncached. */
const searchLookups = {
  hit: cacheLookups.labels('idap_search', 'hit'),
  miss: cacheLookups.labels('idap_search', 'miss'),
  bypass: cacheLookups.labels('idap_search', 'bypass'),
};

export function createIdapService(deps: {
  reads: IdapReads;
  /** Called when a search meets an index ranked the way of an older version (rerankIndex brings it up to date). */
  outdatedIndex?: (clientId: string, type: ResourceType) => void;
  /** How far behind now a list or sync reads (IDAP_SYNC_SETTLE_MS). */
  syncSettleMs: number;
  /** What the search index's maintenance takes turns with, across processes. */
  lock: RunLocked;
}) {
  const { reads } = deps;
  return {
    batch: (clientId: string, req: JsonBody<'batchGetResources'>) => batchGet(reads, clientId, req),

    async search(
      clientId: string,
      type: ResourceType | 'media',
      query: SearchQuery,
      trace: SearchTrace = newSearchTrace(),
    ): Promise<Schemas['SearchResult']> {
      if (type === 'media') throw mediaNotSearchable();
      const typeReads = reads.of(clientId, type);
      const queriesBefore = trace.queries;
      const items = await searchResources(
        typeReads,
        type,
        query.q,
        { limit: query.limit ?? 20, fields: csv(query.fields), ...flagFilter(query.flags) },
        trace,
      );
      const result = !typeReads.cached ? 'bypass' : trace.queries > queriesBefore ? 'miss' : 'hit';
      searchLookups[result].inc();
      if (deps.outdatedIndex && (await typeReads.stats()).layout < INDEX_LAYOUT) deps.outdatedIndex(clientId, type);
      return { resource_type: type, count: items.length, has_more: false, next_cursor: null, items };
    },

    list: (clientId: string, type: ResourceType, query: ListQuery) =>
      listResources(clientId, type, query, deps.syncSettleMs),

    /** Every resource of the listing `query` names, as a CSV or JSON Lines download read as it is written. */
    download: (clientId: string, type: ResourceType, query: ListQuery, format: DownloadFormat) =>
      resourcesDownload(type, exportResources(clientId, type, query, deps.syncSettleMs), format, csv(query.fields)),

    changeFlags: (clientId: string, refs: string[], change: FlagChange) =>
      changeFlags(clientId, refs, change, deps.lock),
  };
}

export type IdapService = ReturnType<typeof createIdapService>;

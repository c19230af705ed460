import type { Client } from 'openapi-fetch';
import { unwrap, type JsonMedia } from './errors';
import type { components, paths } from './generated/openapi';

export type ListedResource = components['schemas']['ListedResource'];
export type ResourcePage = components['schemas']['ResourcePage'];
export type FlagChange = components['schemas']['FlagChange'];
export type FlagsBatchResult = components['schemas']['FlagsBatchResult'];
export type ResourceType = paths['/api/v1/idap/{resource_type}']['get']['parameters']['path']['resource_type'];

export interface SyncResourcesOptions {
  /** A cursor kept from an earlier sync (its last page's `next_cursor`): only what was created or changed since. */
  cursor?: string;
  /** Without a cursor: start at the resources created or changed at or after this time (ISO 8601). */
  modifiedSince?: string;
  /** Flags to require (`qualified`) and to exclude (`!rejected`), comma-separated; nothing is excluded otherwise. */
  flags?: string;
  /** Fields of `data` to return, comma-separated. */
  fields?: string;
  /** Resources per page (1 to 100, default 20). */
  limit?: number;
  signal?: AbortSignal;
}

/**
 * A list or sync of one resource type followed to its end: each page as the service answers it, oldest change first,
 * until the page whose `has_more` is false. Keep each page's `next_cursor` once its items are handled: the last one
 * is the cursor the next sync starts from (it answers only what was created or changed since, every resource at least
 * once in its latest state, an unchanged one never twice).
 */
export async function* syncResources(
  api: Client<paths, JsonMedia>,
  type: ResourceType,
  options: SyncResourcesOptions = {},
): AsyncGenerator<ResourcePage, void, undefined> {
  let cursor = options.cursor;
  for (;;) {
    const query = {
      ...(cursor ? { cursor } : options.modifiedSince ? { modified_since: options.modifiedSince } : {}),
      ...(options.flags && { flags: options.flags }),
      ...(options.fields && { fields: options.fields }),
      ...(options.limit !== undefined && { limit: options.limit }),
    };
    const page = await unwrap(
      api.GET('/api/v1/idap/{resource_type}', {
        params: { path: { resource_type: type }, query },
        signal: options.signal,
      }),
    );
    yield page;
    if (!page.has_more) return;
    cursor = page.next_cursor;
  }
}

/** At most this many refs per call of POST /idap/flags. */
const FLAG_BATCH = 100;

/**
 * One flag change (`add`, `remove`) applied to any number of resources by ref, 100 per call; the results and the
 * per-ref errors of every call together.
 */
export async function flagResources(
  api: Client<paths, JsonMedia>,
  refs: string[],
  change: FlagChange,
): Promise<FlagsBatchResult> {
  const all: FlagsBatchResult = { results: {}, errors: {} };
  const distinct = [...new Set(refs)];
  for (let i = 0; i < distinct.length; i += FLAG_BATCH) {
    const part = await unwrap(
      api.POST('/api/v1/idap/flags', { body: { refs: distinct.slice(i, i + FLAG_BATCH), ...change } }),
    );
    Object.assign(all.results, part.results);
    Object.assign(all.errors, part.errors);
  }
  return all;
}

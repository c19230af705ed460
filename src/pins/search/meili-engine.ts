import { Meilisearch, MeilisearchApiError, type Index } from 'meilisearch';
import { AppError } from '../../lib/errors';
import type { PinSearchEngine, SearchResponse } from './engine';
import {
  DISPLAYED_ATTRIBUTES,
  FILTERABLE_ATTRIBUTES,
  SEARCHABLE_ATTRIBUTES,
  SORTABLE_ATTRIBUTES,
  type PinSearchDocument,
} from './search-document';

export interface MeiliOptions {
  url: string;
  apiKey?: string;
  index: string;
  timeoutMs: number;
}

/**
 * The upstream error rows: Meilisearch's rejection of the body is the caller's 400 (its message, code,
 * type and link relayed); a refused credential is our misconfiguration (500); the engine down or slow is
 * 503; an answer that is not Meilisearch's is 502. Details beyond the 400 are masked.
 */
export function upstreamError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof MeilisearchApiError) {
    const status = err.response?.status ?? 0;
    const cause = err.cause;
    if (status === 400 && cause?.type === 'invalid_request' && typeof cause.message === 'string') {
      return AppError.badRequest(cause.message, { code: cause.code, type: cause.type, link: cause.link });
    }
    if (status === 401 || status === 403 || cause?.type === 'auth')
      return new AppError(500, 'Search engine credential misconfigured');
    if (status >= 500) return AppError.unavailable('Upstream temporarily unavailable');
    return new AppError(502, 'Search engine answer could not be interpreted');
  }
  // The client parses every body as JSON; a body that is not (a proxy's error page) is not Meilisearch's answer.
  if (err instanceof SyntaxError) return new AppError(502, 'Search engine answer could not be interpreted');
  return AppError.unavailable('Upstream temporarily unavailable');
}

/** A string filter or the array form, with the visibility rule ANDed in front. */
function withVisibility(filter: unknown, now: number): unknown[] {
  const visible = `subscription_status = active AND subscription_expires_at > ${now}`;
  if (filter === undefined || filter === null || filter === '') return [visible];
  return Array.isArray(filter) ? [visible, ...filter] : [visible, filter];
}

/** Meilisearch itself, through its client; the index's settings are applied once per process. */
export function createMeiliEngine(opts: MeiliOptions): PinSearchEngine {
  const client = new Meilisearch({ host: opts.url, apiKey: opts.apiKey, timeout: opts.timeoutMs });
  const index: Index<PinSearchDocument> = client.index(opts.index);
  let ready: Promise<void> | null = null;
  const ensureSettings = () => {
    ready ??= (async () => {
      await client.createIndex(opts.index, { primaryKey: 'id' }).waitTask({ timeout: opts.timeoutMs * 5 });
      await index
        .updateSettings({
          filterableAttributes: FILTERABLE_ATTRIBUTES,
          sortableAttributes: SORTABLE_ATTRIBUTES,
          searchableAttributes: SEARCHABLE_ATTRIBUTES,
          displayedAttributes: DISPLAYED_ATTRIBUTES,
        })
        .waitTask({ timeout: opts.timeoutMs * 5 });
    })().catch((err) => {
      ready = null;
      throw err;
    });
    return ready;
  };
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      await ensureSettings();
      return await work();
    } catch (err) {
      throw upstreamError(err);
    }
  };
  return {
    kind: 'meilisearch',
    search: (body) =>
      guarded(async () => {
        const { q, filter, ...rest } = body;
        const answer = (await index.search(typeof q === 'string' ? q : null, {
          ...rest,
          filter: withVisibility(filter, Date.now()) as string[],
        })) as unknown as SearchResponse;
        if (!answer || !Array.isArray(answer.hits) || typeof answer.processingTimeMs !== 'number') {
          throw new AppError(502, 'Search engine answer could not be interpreted');
        }
        return { ...answer, query: typeof q === 'string' ? q : '' };
      }),
    // Indexing waits for the task, so a pin is searchable once its write is acknowledged.
    index: (docs) =>
      guarded(
        async () =>
          void (await index.addDocuments(docs, { primaryKey: 'id' }).waitTask({ timeout: opts.timeoutMs * 5 })),
      ),
    remove: (pinIds) =>
      guarded(
        async () =>
          void (await index
            .deleteDocuments(pinIds.map((id) => id.replace(':', '-')))
            .waitTask({ timeout: opts.timeoutMs * 5 })),
      ),
  };
}

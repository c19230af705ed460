import type Redis from 'ioredis';
import type { Config } from '../../lib/config';
import type { PinSearchEngine } from './engine';
import { createBuiltinEngine } from './builtin-engine';
import { createMeiliEngine } from './meili-engine';
import { toSearchDocument } from './search-document';

export type { PinSearchEngine, SearchResponse } from './engine';

export type PinSearchConfig = Pick<
  Config,
  'MEILISEARCH_URL' | 'MEILISEARCH_API_KEY' | 'MEILISEARCH_INDEX' | 'MEILISEARCH_TIMEOUT_MS'
>;

const engines = new Map<string, PinSearchEngine>();

/**
 * The pin search engine the configuration names: Meilisearch with MEILISEARCH_URL, else the built-in one (one per
 * process and setting).
 */
export function pinSearchFor(config: PinSearchConfig, redis: Redis): PinSearchEngine {
  const key = config.MEILISEARCH_URL
    ? `${config.MEILISEARCH_URL}|${config.MEILISEARCH_INDEX}`
    : `builtin|${redis.options.keyPrefix ?? ''}`;
  let engine = engines.get(key);
  if (!engine) {
    engine = config.MEILISEARCH_URL
      ? createMeiliEngine({
          url: config.MEILISEARCH_URL,
          apiKey: config.MEILISEARCH_API_KEY,
          index: config.MEILISEARCH_INDEX,
          timeoutMs: config.MEILISEARCH_TIMEOUT_MS,
        })
      : createBuiltinEngine({ redis });
    engines.set(key, engine);
  }
  return engine;
}

/**
 * Keeps the search index current after a pin is written (call it from whatever writes a pin or its
 * subscription, once the write is stored; it throws on an upstream failure, so an activity retries):
 * Meilisearch's document, or for the built-in engine an entry in the pin change feed that every API
 * process's in-memory index reads before its next search.
 */
export async function indexPin(
  pin: Parameters<typeof toSearchDocument>[0],
  config: PinSearchConfig,
  redis: Redis,
): Promise<void> {
  await pinSearchFor(config, redis).index([toSearchDocument(pin)]);
}

import type { Config } from '../../lib/config';
import type { PinSearchEngine } from './engine';
import { createBuiltinEngine } from './builtin-engine';
import { createMeiliEngine } from './meili-engine';
import { toSearchDocument } from './search-document';

export type { PinSearchEngine, SearchResponse } from './engine';

export type PinSearchConfig = Pick<Config, 'MEILISEARCH_URL' | 'MEILISEARCH_API_KEY' | 'MEILISEARCH_INDEX' | 'MEILISEARCH_TIMEOUT_MS'>;

const engines = new Map<string, PinSearchEngine>();

/** The pin search engine the configuration names: Meilisearch with MEILISEARCH_URL, else the built-in one (one per process and setting). */
export function pinSearchFor(config: PinSearchConfig): PinSearchEngine {
  const key = config.MEILISEARCH_URL ? `${config.MEILISEARCH_URL}|${config.MEILISEARCH_INDEX}` : 'builtin';
  let engine = engines.get(key);
  if (!engine) {
    engine = config.MEILISEARCH_URL
      ? createMeiliEngine({ url: config.MEILISEARCH_URL, apiKey: config.MEILISEARCH_API_KEY, index: config.MEILISEARCH_INDEX, timeoutMs: config.MEILISEARCH_TIMEOUT_MS })
      : createBuiltinEngine();
    engines.set(key, engine);
  }
  return engine;
}

/**
 * Keeps the search index current after a pin is written (call it from the activity that writes the pin;
 * it throws AppError 503/500/502 on an upstream failure, so the activity retries). A no-op for the
 * built-in engine, which reads the pins collection itself.
 */
export async function indexPin(pin: Parameters<typeof toSearchDocument>[0], config: PinSearchConfig): Promise<void> {
  await pinSearchFor(config).index([toSearchDocument(pin)]);
}

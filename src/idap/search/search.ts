import type { ResourceType } from '../resources/resource.model';
import { newSearchTrace, type SearchTrace } from './search-trace';
import type { TypeReads } from './type-cache';
import { parseQuery, prepareQuery } from './ranking';
import { topK } from './top-k';
import { resourceView, type ResourceView, type StoredResource } from '../resources/view';

export interface SearchOptions {
  limit: number;
  fields: string[];
  /** Flags a result must carry and flags it must not. */
  require: string[];
  exclude: string[];
}

export type SearchItem = ResourceView & { score: number };

/**
 * Ranked search over the term index (search-index.model.ts), scored in Node so that every document engine answers
 * the same (ranking.ts), reading each term's postings best first only as far as the answer needs (top-k.ts),
 * through the process's cache (index-reads.ts). `trace` counts what it read.
 */
export async function searchResources(
  reads: TypeReads,
  type: ResourceType,
  q: string,
  opts: SearchOptions,
  trace: SearchTrace = newSearchTrace(),
): Promise<SearchItem[]> {
  const parsed = parseQuery(q);
  if (!parsed.tokens.length) return [];
  const [stats, vocabulary, completions] = await Promise.all([
    reads.stats(trace),
    reads.vocabulary(parsed.tokens, trace),
    parsed.prefix ? reads.completions(parsed.prefix, trace) : [],
  ]);
  const df = new Map([...vocabulary, ...completions.map((c) => [c.term, c.df] as const)]);
  const query = prepareQuery(type, parsed, completions, df, stats);
  if (!query.terms.length) return [];
  const top = await topK(query, reads, { k: opts.limit, eligible: flagsAllow(opts), layout: stats.layout }, trace);
  return top.map((r) => ({ ...resourceView(r.doc, opts.fields), score: Math.round(r.score * 1e4) / 1e4 }));
}

/** The flags filter: every required flag present, no excluded one. */
function flagsAllow(opts: Pick<SearchOptions, 'require' | 'exclude'>) {
  return (doc: StoredResource) => {
    const flags = doc.flags ?? [];
    return opts.require.every((f) => flags.includes(f)) && !opts.exclude.some((f) => flags.includes(f));
  };
}

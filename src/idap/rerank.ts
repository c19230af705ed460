import type Redis from 'ioredis';
import type { RunLocked } from '../lib/locks';
import type { Logger } from '../lib/logger';
import type { ResourceType } from './resource.model';
import { rerankIndex } from './resources.service';
import { statsId } from './search-index.model';

/** How long a process's claim to re-rank an index holds without news from it (renewed after each step). */
const CLAIM_MS = 60_000;

/**
 * Re-ranks, in the background, an index a search found written before INDEX_LAYOUT 2 (an upgrade's rebuild on
 * first use, docs/upgrades.md): one process at a time per index (a Redis claim renewed after each step of 100
 * resources; a process that dies lets it lapse and the next search starts over, which converges, as every step
 * does). Searches answer meanwhile, reading the old ranks without stopping early.
 */
export function createReranker(deps: { redis: Redis; lock: RunLocked; logger: Logger }) {
  const running = new Map<string, Promise<void>>();
  let stopped = false;

  async function rerank(clientId: string, type: ResourceType, claim: string) {
    if ((await deps.redis.set(claim, 'rerank', 'PX', CLAIM_MS, 'NX')) !== 'OK') return;
    try {
      const started = Date.now();
      const n = await rerankIndex(clientId, type, deps.lock, async () => {
        if (stopped) throw new Error('stopping');
        await deps.redis.pexpire(claim, CLAIM_MS);
      });
      deps.logger.info(
        { client_id: clientId, resource_type: type, resources: n, ms: Date.now() - started },
        'idap index re-ranked',
      );
    } finally {
      await deps.redis.del(claim).catch(() => undefined);
    }
  }

  return {
    start(clientId: string, type: ResourceType): void {
      const key = statsId(clientId, type);
      if (stopped || running.has(key)) return;
      const run = rerank(clientId, type, `idap-rerank:${key}`)
        .catch((err) => {
          if (!stopped)
            deps.logger.warn({ err, client_id: clientId, resource_type: type }, 'idap index re-rank failed');
        })
        .finally(() => running.delete(key));
      running.set(key, run);
    },
    /** Stops after the step under way. */
    async stop(): Promise<void> {
      stopped = true;
      await Promise.allSettled(running.values());
    },
  };
}

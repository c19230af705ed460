import type Redis from 'ioredis';
import { redisLease } from '../lib/lease';
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
    const lease = redisLease(deps.redis, claim, CLAIM_MS);
    if (!(await lease.take())) return;
    try {
      const started = Date.now();
      const n = await rerankIndex(clientId, type, deps.lock, async () => {
        if (stopped) throw new Error('stopping');
        // Renewed only while this process still holds it: one that lapsed (a long stall) and was taken stops here.
        if (!(await lease.renew())) throw new Error('the re-rank claim lapsed: another process re-ranks now');
      });
      deps.logger.info(
        { client_id: clientId, resource_type: type, resources: n, ms: Date.now() - started },
        'idap index re-ranked',
      );
    } finally {
      await lease.release();
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

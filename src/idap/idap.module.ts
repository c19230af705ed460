import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { idapRoutes } from './idap.routes';
import { createIdapService } from './idap.service';
import { announceThrough } from './index-changes';
import { createIdapReads } from './index-reads';
import { createReranker } from './rerank';

/**
 * The resource access layer's lead data (`idap://<type>/<id>`): read in batches and searched per type, through a
 * per-process cache of what was read (index-reads.ts). The job activities write and index it (resources.service.ts),
 * announcing every change through this process's Redis (index-changes.ts); its media has a module of its own
 * (src/media).
 */
export function createIdapModule(infra: Pick<Infra, 'engines' | 'lock' | 'logger'>) {
  const redis = infra.engines.redis;
  const reads = createIdapReads(redis);
  const stopAnnouncing = announceThrough(redis);
  const rerank = createReranker({ redis, lock: infra.lock, logger: infra.logger });
  const service = createIdapService({ reads, outdatedIndex: rerank.start });
  return {
    handlers: idapRoutes({ idap: service }),
    service,
    reads,
    async close() {
      stopAnnouncing();
      await rerank.stop();
    },
  } satisfies AreaModule;
}

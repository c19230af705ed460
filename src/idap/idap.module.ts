import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createIdapActivities } from '../../activities/idap';
import { idapRoutes } from './idap.routes';
import { createIdapService } from './idap.service';
import { createIdapWorkflows } from './idap.workflows';
import { announceThrough } from './search/index-changes';
import { createIdapReads } from './search/index-reads';
import { rerankOnFirstUse } from './search/rerank';

/**
 * The resource access layer's lead data (`idap://<type>/<id>`): read in batches and searched per type, through a
 * per-process cache of what was read (index-reads.ts), listed and synced per type, and flagged (qualified, rejected,
 * tagged). The job activities write and index it (resources.service.ts), announcing every change through this
 * process's Redis (index-changes.ts); an index written before layout 2 is re-ranked by a workflow of its own
 * (idap.workflows.ts). Its media has a module of its own (src/media).
 */
export function createIdapModule(infra: Pick<Infra, 'config' | 'engines' | 'lock' | 'logger' | 'recorder'>) {
  const redis = infra.engines.redis;
  const { config } = infra;
  const reads = createIdapReads(redis, {
    maxUnits: config.IDAP_CACHE_MAX_UNITS,
    maxUnitsPerTenant: config.IDAP_CACHE_TENANT_MAX_UNITS,
    maxTerms: config.IDAP_CACHE_MAX_TERMS,
  });
  const stopAnnouncing = announceThrough(redis);
  const workflows = createIdapWorkflows(infra.engines.temporal, infra.config.bulkTaskQueue);
  const outdatedIndex = rerankOnFirstUse({ workflows, logger: infra.logger });
  const service = createIdapService({
    reads,
    outdatedIndex,
    syncSettleMs: infra.config.IDAP_SYNC_SETTLE_MS,
    lock: infra.lock,
  });
  return {
    handlers: idapRoutes({ idap: service, recorder: infra.recorder }),
    activities: createIdapActivities({ lock: infra.lock }),
    service,
    reads,
    workflows,
    async close() {
      stopAnnouncing();
    },
  } satisfies AreaModule;
}

import path from 'node:path';
import type { Infra } from '../infra';
import type { Config } from '../lib/config';
import type { Engines } from '../lib/engines';
import { logTapOf } from '../lib/logger';
import type { AreaModule } from '../lib/module';
import { adminRoutes } from './admin.routes';
import { createAnalyticsSources } from './analytics-sources';
import { createAdminReports } from './reports.service';
import { createLogStore } from './log-store';
import { followEngineLogs } from './engine-logs';

/** The log viewer's store of a process, from its configuration. */
export const logStoreFor = (config: Config, engines: Engines) =>
  createLogStore(engines.redis, {
    maxEntries: config.LOG_STORE_MAX_ENTRIES,
    retentionMinutes: config.LOG_STORE_RETENTION_MINUTES,
  });

export type AdminDeps = Pick<Infra, 'config' | 'engines' | 'logger'> & {
  /** An API process keeps its own logs in the store (container `api`) and follows the engines' log files. */
  captureLogs: boolean;
};

/** The admin area: reports (KPIs and analytics sources) and the log viewer. */
export function createAdminModule(deps: AdminDeps) {
  const sources = createAnalyticsSources(deps.config);
  const logs = logStoreFor(deps.config, deps.engines);
  const tap = deps.captureLogs ? logTapOf(deps.logger) : undefined;
  tap?.attach(logs, 'api');
  const engineLogs = deps.captureLogs
    ? followEngineLogs({
        redis: deps.engines.redis,
        sink: logs,
        dir: deps.config.ENGINE_LOG_DIR ?? path.join(deps.config.dataDir, 'logs'),
      })
    : undefined;
  return {
    handlers: adminRoutes({
      reports: createAdminReports({ redis: deps.engines.redis, logger: deps.logger, sources }),
      logs,
    }),
    async close() {
      await engineLogs?.stop();
      await tap?.detach();
      await sources.close();
    },
    /** The analytics sources (tests read what the sandbox's sources were asked). */
    sources,
  } satisfies AreaModule;
}

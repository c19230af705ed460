import type { Config } from '../lib/config';
import type { Engines } from '../lib/engines';
import type { Logger } from '../lib/logger';
import { createAnalyticsSources } from './analytics-sources';
import { createAdminReports } from './reports.service';

/** The admin area: reports (KPIs and analytics sources). */
export function createAdminServices(deps: { config: Config; engines: Engines; logger: Logger }) {
  const sources = createAnalyticsSources(deps.config);
  return {
    sources,
    reports: createAdminReports({ redis: deps.engines.redis, logger: deps.logger, sources }),
    async close() {
      await sources.close();
    },
  };
}

export type AdminServices = ReturnType<typeof createAdminServices>;

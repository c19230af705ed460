import type { Request } from 'express';
import type { OperationHandlers } from '../lib/http/operations';
import { tenantScope } from '../lib/tenancy';
import { windowFromRequest } from './kpi-window';
import type { KpiScope } from './kpi-figures';
import type { LogQuery, LogStore } from './log-store';
import type { AdminReports } from './reports.service';
import { AppError } from '../lib/errors';

const flag = (v: unknown) => v === true || v === 'true';

/**
 * Who the report is for (tenancy's rule: a brand_admin their client, a super_admin all or the selected one),
 * and its window.
 */
function reportRequest(req: Request) {
  const q = req.query as Record<string, unknown>;
  const scope: KpiScope = {
    clientId: tenantScope(req),
    window: windowFromRequest(req),
    country: typeof q.country === 'string' ? q.country : null,
  };
  return { scope, refresh: flag(q.refresh) };
}

/** The report each report operation answers. */
const REPORT_OPERATIONS: Record<string, keyof AdminReports> = {
  getKpis: 'kpis',
  getProductAnalyticsMetrics: 'productAnalytics',
  getWebAnalytics: 'webAnalytics',
  getMobileSubscriptions: 'mobileSubscriptions',
  getCampaignsReport: 'campaigns',
  getSocialReport: 'social',
};

/** The admin reports (KPIs and analytics) and the log viewer. */
export function adminRoutes(deps: { reports: AdminReports; logs: LogStore }): OperationHandlers {
  const reportHandlers: OperationHandlers = Object.fromEntries(
    Object.entries(REPORT_OPERATIONS).map(([operationId, report]) => [
      operationId,
      async (req, res) => void res.json(await deps.reports[report](reportRequest(req))),
    ]),
  );
  return {
    ...reportHandlers,
    async getLogs(req, res) {
      const q = req.query as Record<string, unknown>;
      const minutes = q.minutes === undefined ? 15 : Number(q.minutes);
      const found = await deps.logs
        .query({
          container: q.container as string | undefined,
          level: q.level as LogQuery['level'],
          search: q.search as string | undefined,
          minutes,
          limit: q.limit === undefined ? 100 : Number(q.limit),
        })
        .catch(() => {
          throw AppError.unavailable('The log store (Redis) is unavailable');
        });
      res.json({ generated_at: new Date().toISOString(), minutes, ...found });
    },
  };
}

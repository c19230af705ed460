import type { QueryParams } from '../lib/contract-types';
import type { AnyRequest, OperationHandlers } from '../lib/http/operations';
import { tenantScope } from '../lib/tenancy';
import { windowOf } from './kpi-window';
import type { KpiScope } from './kpi-figures';
import type { LogStore } from './log-store';
import type { AdminReports } from './reports.service';
import { AppError } from '../lib/errors';

/**
 * Who the report is for (tenancy's rule: a brand_admin their client, a super_admin all or the selected one),
 * and its window. Every report takes some of the KPIs' query parameters (refresh, period, from, to, country).
 */
function reportRequest(req: AnyRequest & { query: QueryParams<'getKpis'> }) {
  const q = req.query;
  const scope: KpiScope = {
    clientId: tenantScope(req),
    window: windowOf(q),
    country: q.country ?? null,
  };
  return { scope, refresh: q.refresh === true };
}

/** The admin reports (KPIs and analytics) and the log viewer. */
export function adminRoutes(deps: { reports: AdminReports; logs: LogStore }): OperationHandlers {
  const { reports } = deps;
  return {
    getKpis: async (req, res) => void res.json(await reports.kpis(reportRequest(req))),
    getProductAnalyticsMetrics: async (req, res) => void res.json(await reports.productAnalytics(reportRequest(req))),
    getWebAnalytics: async (req, res) => void res.json(await reports.webAnalytics(reportRequest(req))),
    getMobileSubscriptions: async (req, res) => void res.json(await reports.mobileSubscriptions(reportRequest(req))),
    getCampaignsReport: async (req, res) => void res.json(await reports.campaigns(reportRequest(req))),
    getSocialReport: async (req, res) => void res.json(await reports.social(reportRequest(req))),
    async getLogs(req, res) {
      const q = req.query;
      const minutes = q.minutes ?? 15;
      const found = await deps.logs
        .query({ container: q.container, level: q.level, search: q.search, minutes, limit: q.limit ?? 100 })
        .catch(() => {
          throw AppError.unavailable('The log store (Redis) is unavailable');
        });
      res.json({ generated_at: new Date().toISOString(), minutes, ...found });
    },
  };
}

import type { QueryParams } from '../lib/contract-types';
import type { OperationHandlers } from '../lib/http/operations';
import { requireTenant } from '../lib/tenancy';
import type { ActivityService } from './activity.service';
import type { ShiftQuery } from './shifts.service';
import { DEFAULT_GAP_MINUTES } from './shifts';

function shiftQuery(q: QueryParams<'listShifts' | 'exportShifts'>): ShiftQuery {
  return {
    date: q.date,
    from: q.from,
    to: q.to,
    actor_id: q.actor_id,
    role: q.role,
    gap_minutes: q.gap_minutes ?? DEFAULT_GAP_MINUTES,
  };
}

/** A client's activity: its shifts (as JSON and CSV), its digest settings and its anomalies. */
export function activityRoutes(deps: { activity: ActivityService }): OperationHandlers {
  const { activity } = deps;
  return {
    async listShifts(req, res) {
      res.json(await activity.shifts(requireTenant(req), shiftQuery(req.query)));
    },
    async getShiftDetail(req, res) {
      res.json(await activity.shiftDetail(requireTenant(req), req.query));
    },
    async exportShifts(req, res) {
      const { from, to, csv } = await activity.shiftsCsv(requireTenant(req), shiftQuery(req.query));
      // The dates are validated YYYY-MM-DD, so the name needs no escaping; quoted as the contract shows it.
      res.setHeader('Content-Disposition', `attachment; filename="shifts-${from}-${to}.csv"`);
      res.type('text/csv; charset=utf-8').send(csv);
    },
    async getDigestSettings(req, res) {
      res.json(await activity.digestSettings(requireTenant(req)));
    },
    async updateDigestSettings(req, res) {
      res.json(await activity.changeDigestCadence(requireTenant(req), req.body.cadence));
    },
    async listAnomalies(req, res) {
      res.json(await activity.anomalies(requireTenant(req)));
    },
  };
}

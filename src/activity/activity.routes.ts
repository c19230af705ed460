import type { Services } from '../services';
import type { OperationHandlers } from '../lib/http/operations';
import type { Cadence } from './digest-settings.model';
import { changeCadence, digestSettingsView, loadDigestSettings } from './digest-settings.service';
import { listShifts, shiftDetail, type ShiftQuery } from './shifts.service';
import { shiftsCsv } from './csv';
import { DEFAULT_GAP_MINUTES } from './shifts';
import { anomalyReport } from './anomalies';

function shiftQuery(query: Record<string, unknown>): ShiftQuery {
  const q = query as Record<string, string | undefined>;
  return {
    date: q.date,
    from: q.from,
    to: q.to,
    actor_id: q.actor_id,
    role: q.role,
    gap_minutes: q.gap_minutes ? Number(q.gap_minutes) : DEFAULT_GAP_MINUTES,
  };
}

export function activityRoutes(s: Services): OperationHandlers {
  const { activity } = s;
  return {
    async listShifts(req, res) {
      const client = await activity.clientOf(req);
      res.json(await listShifts(client._id, shiftQuery(req.query)));
    },
    async getShiftDetail(req, res) {
      const client = await activity.clientOf(req);
      const q = req.query as { actor_id: string; started_at: string; ended_at: string };
      res.json(await shiftDetail(client._id, q));
    },
    async exportShifts(req, res) {
      const client = await activity.clientOf(req);
      const list = await listShifts(client._id, shiftQuery(req.query));
      // The dates are validated YYYY-MM-DD, so the name needs no escaping; quoted as the contract shows it.
      res.setHeader('Content-Disposition', `attachment; filename="shifts-${list.from}-${list.to}.csv"`);
      res.type('text/csv; charset=utf-8').send(shiftsCsv(list.shifts));
    },
    async getDigestSettings(req, res) {
      const client = await activity.clientOf(req);
      res.json(digestSettingsView(await loadDigestSettings(client._id, client.created_at)));
    },
    async updateDigestSettings(req, res) {
      const client = await activity.clientOf(req);
      res.json(
        await changeCadence(activity.lock, client._id, client.created_at, (req.body as { cadence: Cadence }).cadence),
      );
    },
    async listAnomalies(req, res) {
      const client = await activity.clientOf(req);
      res.json(await anomalyReport(client._id));
    },
  };
}

import type { QueryParams } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { RunLocked } from '../lib/locks';
import { clientDirectory } from '../clients/client-directory';
import { anomalyReport } from './anomalies';
import { shiftsCsv } from './csv';
import type { Cadence } from './digest-settings.model';
import { changeCadence, digestSettingsView, loadDigestSettings } from './digest-settings.service';
import { listShifts, shiftDetail, type ShiftQuery } from './shifts.service';

/** The activity log as a client reads it: shifts (and their CSV), digest settings and anomalies. */
export function createActivityService(deps: { lock: RunLocked }) {
  /** The client a request acts for (a super_admin's choice must exist: 422 otherwise). */
  async function clientOf(clientId: string): Promise<{ _id: string; name: string; created_at: Date }> {
    const client = await clientDirectory.profile(clientId);
    if (!client) {
      throw AppError.invalid('X-Selected-Client-Id names no client', [
        { location: 'header', field: 'X-Selected-Client-Id', message: 'no such client' },
      ]);
    }
    return { _id: client.client_id, name: client.name, created_at: client.created_at };
  }

  async function shifts(clientId: string, q: ShiftQuery) {
    const client = await clientOf(clientId);
    return listShifts(client._id, q);
  }

  return {
    shifts,

    async shiftDetail(clientId: string, q: QueryParams<'getShiftDetail'>) {
      const client = await clientOf(clientId);
      return shiftDetail(client._id, q);
    },

    /** The shifts as CSV, with the window they cover. */
    async shiftsCsv(clientId: string, q: ShiftQuery) {
      const list = await shifts(clientId, q);
      return { from: list.from, to: list.to, csv: shiftsCsv(list.shifts) };
    },

    async digestSettings(clientId: string) {
      const client = await clientOf(clientId);
      return digestSettingsView(await loadDigestSettings(client._id, client.created_at));
    },

    async changeDigestCadence(clientId: string, cadence: Cadence) {
      const client = await clientOf(clientId);
      return changeCadence(deps.lock, client._id, client.created_at, cadence);
    },

    async anomalies(clientId: string) {
      const client = await clientOf(clientId);
      return anomalyReport(client._id);
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;

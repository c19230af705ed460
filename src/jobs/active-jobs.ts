import type { Schemas } from '../lib/contract-types';
import { JOB_TYPES, JobModel } from './job.model';

/** The unfinished states, as a person reads them: maps-scrape's `processing` is running too. */
const ACTIVE_STATES = { queued: 'queued', processing: 'running', running: 'running', paused: 'paused' } as const;
type ActiveState = (typeof ACTIVE_STATES)[keyof typeof ACTIVE_STATES];

/** A count for every job type, zero included (the contract's JobCountsByType). */
const byType = () => Object.fromEntries(JOB_TYPES.map((type) => [type, 0])) as Schemas['JobCountsByType'];

/**
 * A client's unfinished jobs counted by state and type, from its own job records: one aggregate over the
 * client's jobs in an unfinished state (index client_id, type, status), whatever runs for other clients.
 */
export async function activeJobCounts(clientId: string) {
  const rows = await JobModel.aggregate<{ _id: { type: string; status: keyof typeof ACTIVE_STATES }; n: number }>([
    { $match: { client_id: clientId, status: { $in: Object.keys(ACTIVE_STATES) } } },
    { $group: { _id: { type: '$type', status: '$status' }, n: { $sum: 1 } } },
  ]);
  const jobs: Record<ActiveState, Schemas['JobCountsByType']> = {
    queued: byType(),
    running: byType(),
    paused: byType(),
  };
  let active_total = 0;
  for (const { _id, n } of rows) {
    const state = ACTIVE_STATES[_id.status];
    jobs[state][_id.type] = (jobs[state][_id.type] ?? 0) + n;
    active_total += n;
  }
  return { ...jobs, active_total };
}

export type ActiveJobCounts = Awaited<ReturnType<typeof activeJobCounts>>;

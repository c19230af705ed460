import type { ServiceSchedule } from '../lib/engines/schedules';
import { retentionPurgeWorkflow } from '../../workflows/retention';

/** The daily retention purge (docs/operations.md, "Retention"). */
export const retentionSchedule: ServiceSchedule = {
  name: 'retention-purge',
  every: '1 day',
  workflow: retentionPurgeWorkflow,
};

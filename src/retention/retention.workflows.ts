import type { Client } from '@temporalio/client';
import { ensureSchedule } from '../lib/engines/schedules';
import { retentionPurgeWorkflow } from '../../workflows/retention';

/** One retention schedule per task queue, as the digests have. */
export const retentionScheduleId = (taskQueue: string) => `retention-purge-${taskQueue}`;

/** The daily Schedule of retentionPurgeWorkflow (docs/operations.md, "Retention"). */
export function ensureRetentionSchedule(temporal: Client, taskQueue: string): Promise<void> {
  return ensureSchedule(temporal, {
    scheduleId: retentionScheduleId(taskQueue),
    every: '1 day',
    workflow: retentionPurgeWorkflow,
    taskQueue,
    catchupWindow: '1 day',
  });
}

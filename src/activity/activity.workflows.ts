import type { Client } from '@temporalio/client';
import { ensureSchedule } from '../lib/engines/schedules';
import { digestTickWorkflow } from '../../workflows/digests';

/** One digest schedule per task queue: every worker of the queue tries to create it, the first does. */
export const digestScheduleId = (taskQueue: string) => `digest-tick-${taskQueue}`;

/** The hourly Schedule of digestTickWorkflow: a tick let go sends nothing twice, the next sends what is due. */
export function ensureDigestSchedule(temporal: Client, taskQueue: string): Promise<void> {
  return ensureSchedule(temporal, {
    scheduleId: digestScheduleId(taskQueue),
    every: '1 hour',
    workflow: digestTickWorkflow,
    taskQueue,
    catchupWindow: '1 hour',
  });
}

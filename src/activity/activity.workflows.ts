import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { digestTickWorkflow } from '../../workflows/digests';

/** One digest schedule per task queue: every worker of the queue tries to create it, the first does. */
export const digestScheduleId = (taskQueue: string) => `digest-tick-${taskQueue}`;

/**
 * The hourly Temporal Schedule that starts digestTickWorkflow, created at worker start if it does not
 * exist yet (every worker tries; the first creates it). A tick that is still running when the next
 * one is due lets that one go: the next tick sends whatever is still due.
 */
export async function ensureDigestSchedule(temporal: Client, taskQueue: string): Promise<void> {
  const scheduleId = digestScheduleId(taskQueue);
  try {
    await temporal.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: digestTickWorkflow,
        taskQueue,
        workflowId: `${scheduleId}-run`,
        args: [],
      },
      policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

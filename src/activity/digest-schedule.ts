import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';

export const DIGEST_TICK_WORKFLOW = 'digestTickWorkflow';
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
        workflowType: DIGEST_TICK_WORKFLOW,
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

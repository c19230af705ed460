import { ScheduleAlreadyRunning, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';

/**
 * A Temporal Schedule that starts `workflow` every `every` on `taskQueue`, created at worker start if it does not
 * exist yet (every worker tries; the first creates it; one left by an earlier version is kept as it is). A run
 * still going when the next is due lets that one go.
 */
export async function ensureSchedule<W extends Workflow & (() => Promise<unknown>)>(
  temporal: Client,
  s: { scheduleId: string; every: Duration; workflow: W; taskQueue: string; catchupWindow: Duration },
): Promise<void> {
  // A workflow of no arguments; TypeScript cannot resolve the action's argument type for a generic W.
  const action = {
    type: 'startWorkflow',
    workflowType: s.workflow,
    taskQueue: s.taskQueue,
    workflowId: `${s.scheduleId}-run`,
    args: [],
  } as unknown as ScheduleOptionsStartWorkflowAction<W>;
  try {
    await temporal.schedule.create({
      scheduleId: s.scheduleId,
      spec: { intervals: [{ every: s.every }] },
      action,
      policies: { overlap: 'SKIP', catchupWindow: s.catchupWindow },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

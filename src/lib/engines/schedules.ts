import { ScheduleAlreadyRunning, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';

/** A workflow of no arguments the service runs on a Temporal Schedule, every `every`. */
export interface ServiceSchedule<W extends Workflow = Workflow> {
  /** The schedule's id before its task queue (`digest-tick`, `retention-purge`). */
  name: string;
  every: Duration;
  workflow: W;
}

/** One schedule per task queue: every worker of the queue tries to create it, the first does. */
export const scheduleIdOf = (schedule: ServiceSchedule, taskQueue: string) => `${schedule.name}-${taskQueue}`;

/**
 * Creates the schedule if it does not exist yet (one left by an earlier version is kept as it is). A run still
 * going when the next is due lets that one go; one missed while the cluster was away runs within a period.
 */
export async function ensureSchedule(temporal: Client, schedule: ServiceSchedule, taskQueue: string): Promise<void> {
  const scheduleId = scheduleIdOf(schedule, taskQueue);
  // A workflow of no arguments; TypeScript cannot resolve the action's argument type for a generic workflow.
  const action = {
    type: 'startWorkflow',
    workflowType: schedule.workflow,
    taskQueue,
    workflowId: `${scheduleId}-run`,
    args: [],
  } as unknown as ScheduleOptionsStartWorkflowAction<Workflow>;
  try {
    await temporal.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: schedule.every }] },
      action,
      policies: { overlap: 'SKIP', catchupWindow: schedule.every },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

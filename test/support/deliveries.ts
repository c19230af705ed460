import { eventually } from './eventually';
import type { TestApi } from './harness';

/**
 * Until no e-mail or SMS delivery of this API's task queue is running: every message handed to the notifier by
 * then has reached its channel (the outbox, locally), so a test may look for one that must not be there.
 */
export async function deliveriesSettled(api: TestApi): Promise<void> {
  const queue = api.config.TEMPORAL_TASK_QUEUE;
  const query = `WorkflowType="deliverMessageWorkflow" AND ExecutionStatus="Running" AND TaskQueue="${queue}"`;
  await eventually(
    async () => ((await api.rt.engines.temporal.workflow.count(query)).count === 0 ? true : undefined),
    30_000,
    200,
    'every delivery ended',
  );
}

import { temporal as proto } from '@temporalio/proto';
import type { Client } from '@temporalio/client';

const MAX_RUNNING_LISTED = 10_000;

/** Backlog and pollers from Temporal's task-queue stats; running workflows counted by type from visibility. */
export async function queueStats(client: Client, taskQueues: string[]) {
  const namespace = client.options.namespace;
  const task_queues = await Promise.all(
    taskQueues.map(async (name) => {
      const described = await client.connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        reportStats: true,
      });
      const running: Record<string, number> = {};
      let running_total = 0;
      const escaped = name.replace(/"/g, '\\"');
      for await (const wf of client.workflow.list({ query: `ExecutionStatus="Running" AND TaskQueue="${escaped}"` })) {
        running[wf.type] = (running[wf.type] ?? 0) + 1;
        if (++running_total >= MAX_RUNNING_LISTED) break;
      }
      return {
        name,
        backlog: Number(described.stats?.approximateBacklogCount ?? 0),
        pollers: described.pollers?.length ?? 0,
        running,
        running_total,
      };
    }),
  );
  return { generated_at: new Date().toISOString(), task_queues };
}

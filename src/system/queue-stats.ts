import { temporal as proto } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import type { ActiveJobCounts } from '../jobs/active-jobs';

const MAX_RUNNING_LISTED = 10_000;
/** How long one platform figure is served again: a dashboard polling it reaches Temporal once per interval. */
const PLATFORM_STATS_TTL_MS = 5_000;

/** Backlog and pollers from Temporal's task-queue stats; running workflows counted by type from visibility. */
async function readPlatformStats(client: Client, taskQueues: string[]) {
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
  return { generated_at: new Date().toISOString(), scope: 'platform' as const, task_queues };
}

/**
 * The platform's queues as an operator sees them, read from Temporal at most once per PLATFORM_STATS_TTL_MS
 * per process; callers meanwhile share the one read in flight or its result.
 */
export function platformQueueStats(client: Client, taskQueues: string[]) {
  let last: { at: number; stats: Promise<Awaited<ReturnType<typeof readPlatformStats>>> } | null = null;
  return () => {
    if (!last || Date.now() - last.at > PLATFORM_STATS_TTL_MS) {
      const stats = readPlatformStats(client, taskQueues);
      const entry = { at: Date.now(), stats };
      last = entry;
      stats.catch(() => {
        if (last === entry) last = null; // a failed read is not served again
      });
    }
    return last.stats;
  };
}

/** One client's view: its own unfinished jobs, from its job records; nothing of other tenants or of Temporal. */
export async function clientQueueStats(clientId: string, counts: (clientId: string) => Promise<ActiveJobCounts>) {
  return { generated_at: new Date().toISOString(), scope: 'client' as const, jobs: await counts(clientId) };
}

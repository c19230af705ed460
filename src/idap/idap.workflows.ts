import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { startWorkflow } from '../lib/engines/temporal';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { idapRerankWorkflow } from '../../workflows/idap';
import type { ResourceType } from './resources/resource.model';

/** The re-rank of one tenant's index of one type: one run at a time, found in the Temporal UI by this id. */
export const rerankWorkflowId = (clientId: string, type: ResourceType) => `idap-rerank-${clientId}-${type}`;

/** The idap area's workflow calls, by workflow function. */
export function createIdapWorkflows(temporal: Client, taskQueue: string) {
  return {
    /**
     * Starts re-ranking an index written before layout 2, or joins the run already doing it (a second start while
     * one runs converges on it). On the bulk queue, with the job index feeds: minutes of index writes, not an answer
     * anybody waits for. A run that has closed leaves the id free, so an index found outdated again re-ranks again.
     */
    async rerank(clientId: string, type: ResourceType): Promise<{ workflowId: string; runId?: string }> {
      const workflowId = rerankWorkflowId(clientId, type);
      const { handle } = await startWorkflow(
        temporal,
        idapRerankWorkflow,
        {
          taskQueue,
          workflowId,
          args: [{ client_id: clientId, resource_type: type }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: searchAttributesOf({ clientId }),
        },
        { once: true },
      );
      // The run this start converged on: the one it started, or the running one (USE_EXISTING answers its id).
      const runId = (handle as Partial<WorkflowHandleWithFirstExecutionRunId>).firstExecutionRunId;
      return { workflowId, runId };
    },
  };
}

export type IdapWorkflows = ReturnType<typeof createIdapWorkflows>;

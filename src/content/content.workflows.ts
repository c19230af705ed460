import type { Client, WorkflowStartOptions } from '@temporalio/client';
import { startWorkflow } from '../lib/engines/temporal';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { contentDeployHookWorkflow } from '../../workflows/content';
import type { DeployHookCall, DeployHookPayload } from './deploy-hook-call';

/** The deploy hook call of one published revision: publishing it again names the same call. */
export const deployHookWorkflowId = (p: Pick<DeployHookPayload, 'type' | 'id' | 'revision'>) =>
  `content-deploy-${p.type}-${p.id}-r${p.revision}`;

/** The content area's workflow calls, by workflow function. */
export function createContentWorkflows(temporal: Client, taskQueue: string) {
  // A call made before (or still running) is never made again: its id is taken for good.
  const deployHookRun = (call: DeployHookCall): WorkflowStartOptions<typeof contentDeployHookWorkflow> => ({
    taskQueue,
    workflowId: call.delivery_id,
    args: [call],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributesOf({ clientId: call.payload.client_id }),
  });
  return {
    /** Calls the deploy hook through a durable run; a call already made or running for this revision is left. */
    async callDeployHook(call: DeployHookCall): Promise<void> {
      await startWorkflow(temporal, contentDeployHookWorkflow, deployHookRun(call), { once: true });
    },
  };
}

export type ContentWorkflows = ReturnType<typeof createContentWorkflows>;

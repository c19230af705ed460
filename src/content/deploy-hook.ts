import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { ClientModel } from '../clients/client.model';
import { withinDeadline } from '../lib/engines/temporal';

export const DEPLOY_HOOK_WORKFLOW = 'contentDeployHookWorkflow';

/** What the deploy hook receives (JSON, POST) when a post or page is published. */
export interface DeployHookPayload {
  event: 'content.published';
  type: 'post' | 'page';
  id: string;
  slug: string;
  client_id: string;
  revision: number;
  published_at: string | null;
}

export interface DeployHookCall {
  url: string;
  /** The workflow id; sent as Idempotency-Key so a receiver can drop a retried delivery. */
  delivery_id: string;
  payload: DeployHookPayload;
}

/**
 * Calls the client's deploy hook, when one is configured, through a durable workflow (retries with
 * backoff). The workflow id is derived from the record and its revision, so publishing the same
 * revision again (a retried request, a double click) never calls the hook twice.
 */
export function createDeployHooks(temporal: Client, taskQueue: string) {
  return {
    async published(payload: DeployHookPayload): Promise<string | null> {
      const client = await ClientModel.findById(payload.client_id, { deploy_hook_url: 1 }).lean<{
        deploy_hook_url?: string | null;
      }>();
      const url = client?.deploy_hook_url;
      if (!url) return null;
      const workflowId = `content-deploy-${payload.type}-${payload.id}-r${payload.revision}`;
      const call: DeployHookCall = { url, delivery_id: workflowId, payload };
      try {
        await withinDeadline(temporal, () =>
          temporal.workflow.start(DEPLOY_HOOK_WORKFLOW, {
            taskQueue,
            workflowId,
            args: [call],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            workflowIdConflictPolicy: 'USE_EXISTING',
          }),
        );
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      return workflowId;
    },
  };
}

export type DeployHooks = ReturnType<typeof createDeployHooks>;

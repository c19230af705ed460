import { clientDirectory } from '../clients/client-directory';
import { deployHookWorkflowId, type ContentWorkflows } from './content.workflows';
import type { DeployHookPayload } from './deploy-hook-call';

/**
 * Calls the client's deploy hook, when one is configured, through a durable workflow (retries with
 * backoff). The workflow id is derived from the record and its revision, so publishing the same
 * revision again (a retried request, a double click) never calls the hook twice.
 */
export function createDeployHooks(workflows: Pick<ContentWorkflows, 'callDeployHook'>) {
  return {
    async published(payload: DeployHookPayload): Promise<string | null> {
      const url = (await clientDirectory.profile(payload.client_id))?.deploy_hook_url;
      if (!url) return null;
      const workflowId = deployHookWorkflowId(payload);
      await workflows.callDeployHook({ url, delivery_id: workflowId, payload });
      return workflowId;
    },
  };
}

export type DeployHooks = ReturnType<typeof createDeployHooks>;

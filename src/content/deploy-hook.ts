import { clientDirectory } from '../clients/client-directory';
import { deployHookWorkflowId, type ContentWorkflows } from './content.workflows';

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

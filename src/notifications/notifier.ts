import type { Client, WorkflowHandle } from '@temporalio/client';
import { startWorkflow } from '../lib/engines/temporal';
import { stableUuid } from '../lib/ids';
import { deliverMessageWorkflow } from '../../workflows/notifications';
import type { OutboundMessage } from './message';

export interface Notifier {
  /**
   * Hands a message to a durable delivery workflow and returns its handle. `key` names what the message is
   * for (`signup-link-<reservation>`, `password-reset-<token hash>`): the workflow id is `message-<key>`, so a
   * retried send delivers the message once.
   */
  send(key: string, message: Omit<OutboundMessage, 'id'>): Promise<WorkflowHandle<typeof deliverMessageWorkflow>>;
}

/**
 * Messages are delivered by a workflow, not inline: once `send` returns, Temporal holds the message
 * and retries the provider until it accepts it, even across restarts.
 */
export function createNotifier(temporal: Client, taskQueue: string): Notifier {
  return {
    async send(key, message) {
      const { handle } = await startWorkflow(
        temporal,
        deliverMessageWorkflow,
        { taskQueue, workflowId: `message-${key}`, args: [{ ...message, id: stableUuid('message', key) }] },
        { once: true },
      );
      return handle;
    },
  };
}

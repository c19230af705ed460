import type { Client } from '@temporalio/client';
import { withinDeadline } from '../lib/engines/temporal';
import { newId } from '../lib/ids';
import type { OutboundMessage } from './message';

export const DELIVER_MESSAGE_WORKFLOW = 'deliverMessageWorkflow';

export interface Notifier {
  /** Hands a message to a durable delivery workflow and returns its id (the workflow id). */
  send(message: Omit<OutboundMessage, 'id'>): Promise<string>;
}

/**
 * Messages are delivered by a workflow, not inline: once `send` returns, Temporal holds the message
 * and retries the provider until it accepts it, even across restarts.
 */
export function createNotifier(temporal: Client, taskQueue: string): Notifier {
  return {
    async send(message) {
      const id = newId();
      const workflowId = `message-${id}`;
      await withinDeadline(temporal, () =>
        temporal.workflow.start(DELIVER_MESSAGE_WORKFLOW, {
          taskQueue,
          workflowId,
          args: [{ ...message, id }],
        }),
      );
      return workflowId;
    },
  };
}

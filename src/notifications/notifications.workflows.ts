import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { failureTypeOf, startWorkflow, withinDeadline } from '../lib/engines/temporal';
import { derivedUuid } from '../lib/ids';
import { deliverMessageWorkflow, messageWorkflowId } from '../../workflows/notifications';
import type { OutboundMessage } from './message';

/** `sent`, `timeout` (not delivered within the wait: stopped), or why it failed (a CHANNEL_FAILURES type). */
export type DeliveryOutcome = 'sent' | 'timeout' | 'failed' | (string & {});

/** The message delivery workflow's calls, by its function: every e-mail and SMS the service sends. */
export function createMessageWorkflows(temporal: Client, taskQueue: string) {
  const start = (key: string, message: Omit<OutboundMessage, 'id'>) =>
    startWorkflow(
      temporal,
      deliverMessageWorkflow,
      // The id is derived once, when the workflow starts (its arguments keep it): a send retried with the same
      // key joins that workflow, so no stored message is ever looked up under an id derived another way.
      { taskQueue, workflowId: messageWorkflowId(key), args: [{ ...message, id: derivedUuid('message', key) }] },
      { once: true },
    );

  return {
    /**
     * Hands a message to its durable delivery workflow. `key` names what the message is for
     * (`signup-link-<reservation>`, `password-reset-<token hash>`): the workflow id is `message-<key>`, so a
     * retried send delivers the message once. Answers the delivery's id (its workflow id).
     */
    async send(key: string, message: Omit<OutboundMessage, 'id'>): Promise<{ delivery_id: string }> {
      const { handle } = await start(key, message);
      return { delivery_id: handle.workflowId };
    },

    /**
     * Sends as `send` does and waits up to `waitMs` for the provider's answer, for a caller that must know before
     * it answers (the signup link). A delivery still retrying when the wait ends is stopped, so the message
     * never arrives after its sender gave up on it.
     */
    async deliver(key: string, message: Omit<OutboundMessage, 'id'>, waitMs: number): Promise<DeliveryOutcome> {
      const { handle } = await start(key, message);
      const waited = new AbortController();
      const outcome = await Promise.race([
        handle.result().then(
          () => 'sent',
          (err: unknown) => failureTypeOf(err) ?? 'failed',
        ),
        sleep(waitMs, 'timeout', { signal: waited.signal }).catch(() => 'failed'),
      ]);
      waited.abort();
      if (outcome === 'timeout')
        await withinDeadline(temporal, () => handle.terminate('not delivered in time; its sender gave up')).catch(
          () => undefined,
        );
      return outcome;
    },
  };
}

export type MessageWorkflows = ReturnType<typeof createMessageWorkflows>;

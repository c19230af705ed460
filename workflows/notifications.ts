import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OutboundMessage } from '../src/notifications/message';

const { sendMessage } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // A provider outage delays a message; it does not lose it.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 50 },
});

/** One delivery per key (what the message is for), so a message sent twice under one key is delivered once. */
export const messageWorkflowId = (key: string) => `message-${key}`;

/** Delivers one e-mail or SMS through the configured channel, retrying until the provider accepts it. */
export async function deliverMessageWorkflow(message: OutboundMessage): Promise<{ delivered: true }> {
  await sendMessage(message);
  return { delivered: true };
}

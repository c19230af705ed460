import { createMessageWorkflows, type MessageWorkflows } from './notifications.workflows';

/**
 * How every area sends e-mail and SMS: through a delivery workflow, not inline, so once `send` returns Temporal
 * holds the message and retries the provider until it accepts it, even across restarts. Its Temporal calls are
 * the notifications area's (notifications.workflows.ts); a sender gets the delivery's id or outcome, never a
 * workflow handle.
 */
export type Notifier = MessageWorkflows;

export const createNotifier = createMessageWorkflows;

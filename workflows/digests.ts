import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, WorkflowIdReusePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { deliverMessageWorkflow, messageWorkflowId } from './notifications';

const { dueDigests, prepareDigest, markDigestSent } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * One hourly tick of the digest schedule: sends every due client its digest. Each e-mail is handed to
 * a delivery workflow whose id is derived from client, period and recipient and may never be reused,
 * so a retried activity, a re-run tick or two overlapping ticks start it once; the period's claim
 * (markDigestSent) then keeps later ticks from even preparing it again.
 */
export async function digestTickWorkflow(): Promise<{ due: number; sent: number }> {
  const due = await dueDigests();
  let sent = 0;
  for (const digest of due) {
    for (const message of await prepareDigest(digest)) {
      try {
        await startChild(deliverMessageWorkflow, {
          workflowId: messageWorkflowId(message.id),
          args: [message],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        });
        sent++;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }
    await markDigestSent(digest);
  }
  return { due: due.length, sent };
}

import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  ALREADY_DECIDED,
  EXPIRED,
  INVALID_DECISION,
  approvalEmailWorkflowId,
  decideUpdate,
  isDecision,
  limitChangeErrors,
  type AccessRequestInput,
  type Approver,
  type LimitChanges,
  type Verdict,
} from './access-request-api';
import { deliverMessageWorkflow } from './notifications';

const { decideAccessRequest, expireAccessRequest } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * An access request awaiting an admin's decision (approve or deny link), for at most `ttl_ms`.
 * The decision is an Update: the first one wins (checked and taken synchronously, so approve and
 * deny arriving together cannot both pass), later ones and those after the deadline are rejected
 * with a failure naming why. Without a decision the request expires.
 */
export async function accessRequestWorkflow(input: AccessRequestInput): Promise<Verdict | 'expired'> {
  let verdict: Verdict | null = null;
  let expired = false;
  const refuse = () => {
    if (expired)
      throw ApplicationFailure.create({ type: EXPIRED, message: 'Access request has expired', nonRetryable: true });
    if (verdict)
      throw ApplicationFailure.create({
        type: ALREADY_DECIDED,
        message: `Access request already ${verdict}`,
        nonRetryable: true,
      });
  };
  setHandler(
    decideUpdate,
    async (decision, approver, limits) => {
      refuse();
      verdict = decision;
      // The token's id comes from the workflow, so a retried activity issues the same token once.
      return decideAccessRequest({
        request_id: input.request_id,
        verdict: decision,
        token_id: uuid4(),
        approver,
        ...(limits ? { limits } : {}),
      });
    },
    {
      validator: (decision: Verdict, approver: Approver, limits?: LimitChanges) => {
        if (!isDecision(decision, approver) || limitChangeErrors(limits).length)
          throw ApplicationFailure.create({
            type: INVALID_DECISION,
            message: 'A decision needs a verdict, the approver it is made as, and limits within their bounds',
            nonRetryable: true,
          });
        refuse();
      },
    },
  );

  const { workflowId } = workflowInfo();
  for (const [i, email] of input.emails.entries()) {
    await startChild(deliverMessageWorkflow, {
      workflowId: approvalEmailWorkflowId(workflowId, i),
      args: [{ ...email, id: uuid4() }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }

  const decided = await condition(() => verdict !== null, input.ttl_ms);
  if (!decided) {
    expired = true;
    await expireAccessRequest(input.request_id);
    return 'expired';
  }
  await condition(allHandlersFinished);
  return verdict!;
}

import type { Client } from '@temporalio/client';
import { AppError } from '../lib/errors';
import { failureAnswer, startWorkflow, withinDeadline, workflowEnded } from '../lib/engines/temporal';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { accessRequestWorkflow } from '../../workflows/access-requests';
import {
  ALREADY_DECIDED,
  EXPIRED,
  accessRequestWorkflowId,
  decideUpdate,
  type AccessDecisionResult,
  type AccessRequestInput,
  type Approver,
  type LimitChanges,
  type Verdict,
} from '../../workflows/access-request-api';

/** What the API answers when the request's workflow refuses a decision: another decision won (409), too late (410). */
const DECISION_REFUSALS = {
  [EXPIRED]: (message: string) => new AppError(410, message),
  [ALREADY_DECIDED]: (message: string) => AppError.conflict(message),
};

/** The access request's workflow calls, by the workflow function and its shared definitions. */
export function createAccessRequestWorkflows(temporal: Client, taskQueue: string) {
  return {
    /** Starts the request's run (its id is the request's, so a start repeated after a timeout starts it once). */
    async open(input: AccessRequestInput, clientId: string | null): Promise<void> {
      await startWorkflow(
        temporal,
        accessRequestWorkflow,
        {
          taskQueue,
          workflowId: accessRequestWorkflowId(input.request_id),
          args: [input],
          ...(clientId ? { typedSearchAttributes: searchAttributesOf({ clientId }) } : {}),
        },
        { once: true },
      );
    },

    /**
     * Delivers an approver's decision and answers the decision the workflow took. Its refusals are AppErrors; a
     * run that has already ended is judged by `whyEnded` (the state it left), else its error stands.
     */
    async decide(
      requestId: string,
      verdict: Verdict,
      approver: Approver,
      limits: LimitChanges | undefined,
      whyEnded: () => Promise<AppError | null>,
    ): Promise<AccessDecisionResult> {
      const handle = temporal.workflow.getHandle<typeof accessRequestWorkflow>(accessRequestWorkflowId(requestId));
      // Without changes, the Update carries the two arguments it always had.
      const args: [Verdict, Approver, LimitChanges?] = limits ? [verdict, approver, limits] : [verdict, approver];
      try {
        return await withinDeadline(temporal, () => handle.executeUpdate(decideUpdate, { args }));
      } catch (err) {
        if (workflowEnded(err)) throw (await whyEnded()) ?? err;
        throw failureAnswer(err, DECISION_REFUSALS);
      }
    },
  };
}

export type AccessRequestWorkflows = ReturnType<typeof createAccessRequestWorkflows>;

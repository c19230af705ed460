import { createAccessDecisions } from '../src/agents/access-decisions';
import type { Approver, LimitChanges, Verdict } from '../workflows/access-request-api';

export function createAccessRequestActivities(deps: { agents: { credentialsKey: string } }) {
  const decisions = createAccessDecisions(deps.agents);
  return {
    decideAccessRequest(input: {
      request_id: string;
      verdict: Verdict;
      token_id: string;
      approver: Approver;
      /** The approver's changes to the limits offered (absent: the offer). */
      limits?: LimitChanges;
    }) {
      return decisions.decide(input.request_id, input.verdict, input.token_id, input.approver, input.limits);
    },
    expireAccessRequest(requestId: string) {
      return decisions.expire(requestId);
    },
  };
}

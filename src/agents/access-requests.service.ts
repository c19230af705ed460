import type Redis from 'ioredis';
import { SecretBox } from '../lib/crypto';
import type { JsonBody } from '../lib/contract-types';
import type { Clock } from '../lib/clock';
import { fixedWindowLimit, minimumSpacing } from '../lib/rate-limit';
import type { Caller } from '../lib/tenancy';
import type { Verdict } from '../../workflows/access-request-api';
import type { AccessRequestWorkflows } from './agents.workflows';
import { requestAccess, requestAccessByEmail } from './access-request-open';
import { pollStatus, POLL_INTERVAL_SECONDS } from './access-request-poll';
import { listForApprover, previewByLink } from './access-request-review';
import { decideAs, decideByLink, type OfferChanges } from './access-request-decision';

export interface AccessRequestsDeps {
  /** Which window the limits count in (src/lib/clock.ts); the system clock unless a test moves it. */
  clock?: Clock;
  workflows: AccessRequestWorkflows;
  redis: Redis;
  credentialsKey: string;
  publicBaseUrl: string;
  ttlSeconds: number;
  ratePerHour: number;
}

/**
 * Agents' access requests: opened (access-request-open.ts), polled by the agent (access-request-poll.ts), seen
 * (access-request-review.ts) and decided (access-request-decision.ts) by an approver. What holds state lives here:
 * the limit on requests per address and the spacing of polls (in Redis), and the box the issued token is sealed in.
 */
export function createAccessRequests(deps: AccessRequestsDeps) {
  const { workflows } = deps;
  const box = new SecretBox(deps.credentialsKey);

  /** At most ratePerHour requests from one caller's address (clientAddress) an hour (0: no limit): each sends mail. */
  const requestsPerAddress = fixedWindowLimit(
    deps.redis,
    'access-requests:address',
    { max: deps.ratePerHour, seconds: 3600 },
    deps.clock,
  );
  /** RFC 8628's slow_down: a poll within the interval of the last one answered is refused, with the interval. */
  const pollSpacing = minimumSpacing(deps.redis, 'access-request-poll', POLL_INTERVAL_SECONDS);

  async function limitRate(address: string) {
    if (deps.ratePerHour)
      await requestsPerAddress.take(address, `At most ${deps.ratePerHour} access requests per hour from one address`);
  }

  return {
    async request(input: JsonBody<'requestAccessToken'>, address: string) {
      await limitRate(address);
      return requestAccess(deps, input);
    },
    async requestByEmail(input: JsonBody<'requestAccessTokenByEmail'>, address: string) {
      await limitRate(address);
      return requestAccessByEmail(deps, input);
    },
    status: (requestId: string, pollToken: string) => pollStatus({ box, pollSpacing }, requestId, pollToken),
    preview: previewByLink,
    listFor: listForApprover,
    decideAs: (caller: Caller, scope: string | null, requestId: string, verdict: Verdict, limits?: OfferChanges) =>
      decideAs(workflows, caller, scope, requestId, verdict, limits),
    decide: (requestId: string, approvalToken: string, verdict: Verdict, limits?: OfferChanges) =>
      decideByLink(workflows, requestId, approvalToken, verdict, limits),
  };
}

export type AccessRequests = ReturnType<typeof createAccessRequests>;

// The access-request workflow's id, update and types, shared by the workflow and the API that starts and updates it.
import { defineUpdate } from '@temporalio/workflow';
import type { OutboundMessage } from '../src/notifications/message';

export const accessRequestWorkflowId = (requestId: string) => `access-request-${requestId}`;
/** The delivery of the request's n-th approval e-mail: a child of the request's run (its id from the parent's). */
export const approvalEmailWorkflowId = (requestWorkflowId: string, n: number) => `${requestWorkflowId}-email-${n}`;

export type Verdict = 'approved' | 'denied';

/**
 * Who decided, from the link they followed: the client's administrator (its admin_email) may grant any of the
 * client's brands; a brand_admin only the brands they administer. The API always names one (for a request made
 * before approvers were recorded, the client's administrator, whose single link it was).
 */
export interface Approver {
  email: string | null;
  role: 'client_admin' | 'brand_admin';
  user_id: string | null;
}

/** The limits an agent is held to (null: none), as the contract names them. */
export const LIMIT_FIELDS = ['rate_limit_rpm', 'rate_limit_rpd', 'monthly_budget_usd'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];
export type AgentLimitValues = Record<LimitField, number | null>;
/** The approver's changes to the limits offered (a field left out keeps the offer; null: no limit). */
export type LimitChanges = Partial<AgentLimitValues>;

/**
 * Each limit's bounds, as openapi.yaml's AgentLimitsChange declares them (the contract checks a JSON body; these
 * check what a form sent and what reaches the workflow).
 */
const LIMIT_BOUNDS: Record<LimitField, { min: number; max: number; integer: boolean }> = {
  rate_limit_rpm: { min: 1, max: 1_000_000, integer: true },
  rate_limit_rpd: { min: 1, max: 100_000_000, integer: true },
  monthly_budget_usd: { min: 0, max: 1_000_000, integer: false },
};

/** What is wrong with limit changes, field by field (none: they may be applied). */
export function limitChangeErrors(changes: unknown): { field: string; message: string }[] {
  if (changes === undefined) return [];
  if (!changes || typeof changes !== 'object' || Array.isArray(changes))
    return [{ field: 'limits', message: 'must be an object' }];
  return Object.entries(changes).flatMap(([field, value]) => {
    if (!Object.hasOwn(LIMIT_BOUNDS, field)) return [{ field, message: 'is not a limit' }];
    if (value === null) return [];
    const { min, max, integer } = LIMIT_BOUNDS[field as LimitField];
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
      return [{ field, message: integer ? 'must be a whole number' : 'must be a number' }];
    return value < min || value > max ? [{ field, message: `must be from ${min} to ${max}` }] : [];
  });
}

export interface AccessDecisionResult {
  request_id: string;
  status: Verdict;
  decided_at: string;
  token_id: string | null;
  brand_ids: number[];
  token_expires_at: string | null;
  /** The limits approved (absent for a denial, and for decisions recorded before limits were approved). */
  limits?: AgentLimitValues;
}

/** Failure types the API maps to 409 and 410; an Update without a verdict and approver is refused as invalid. */
export const ALREADY_DECIDED = 'AlreadyDecided';
export const EXPIRED = 'Expired';
export const INVALID_DECISION = 'InvalidDecision';

/** Whether an Update's arguments are a verdict and an approver (a brand_admin named by their user id). */
export function isDecision(verdict: unknown, approver: unknown): approver is Approver {
  if (verdict !== 'approved' && verdict !== 'denied') return false;
  if (!approver || typeof approver !== 'object') return false;
  const { email, role, user_id } = approver as Partial<Approver>;
  if (email !== null && typeof email !== 'string') return false;
  if (role === 'client_admin') return user_id === null || typeof user_id === 'string';
  return role === 'brand_admin' && typeof user_id === 'string' && user_id !== '';
}

/**
 * The admin's decision, delivered as an Update so the link's answer reports the decision actually taken, with
 * the approver it is made as: required, so an Update that names none is refused instead of deciding as the
 * client's administrator. (Updates accepted before it was required replay unchanged: a validator does not run
 * on replay.) An approval may carry the approver's changes to the limits offered; without them (and in
 * Updates made before they could) it approves the offer: what the agent asked for, with brand defaults.
 */
export const decideUpdate = defineUpdate<AccessDecisionResult, [Verdict, Approver, LimitChanges?]>('decide');

export interface AccessRequestInput {
  request_id: string;
  /** How long the request waits for a decision (24 hours; tests shorten it). */
  ttl_ms: number;
  /**
   * The approval e-mails, delivered by child workflows so a provider outage delays them without blocking the
   * decision.
   */
  emails: Omit<OutboundMessage, 'id'>[];
}

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

export interface AccessDecisionResult {
  request_id: string;
  status: Verdict;
  decided_at: string;
  token_id: string | null;
  brand_ids: number[];
  token_expires_at: string | null;
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
 * on replay.)
 */
export const decideUpdate = defineUpdate<AccessDecisionResult, [Verdict, Approver]>('decide');

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

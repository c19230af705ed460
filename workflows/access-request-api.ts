// The access-request workflow's id, update and types, shared by the workflow and the API that starts and updates it.
import { defineUpdate } from '@temporalio/workflow';
import type { OutboundMessage } from '../src/notifications/message';

export const accessRequestWorkflowId = (requestId: string) => `access-request-${requestId}`;

export type Verdict = 'approved' | 'denied';

/**
 * Who decided, from the link they followed: the client's administrator (its admin_email) may grant any of the
 * client's brands; a brand_admin only the brands they administer. A request made before approvers were
 * recorded names none, and is decided as by the client's administrator.
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

/** Failure types the API maps to 409 and 410. */
export const ALREADY_DECIDED = 'AlreadyDecided';
export const EXPIRED = 'Expired';

/**
 * The admin's decision, delivered as an Update so the link's answer reports the decision actually taken. The
 * approver is a second, optional argument so histories of Updates made before it existed replay unchanged.
 */
export const decideUpdate = defineUpdate<AccessDecisionResult, [Verdict, Approver?]>('decide');

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

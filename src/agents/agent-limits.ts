import type { Caller } from '../lib/tenancy';
import type { Schemas } from '../lib/contract-types';
import { brandDirectory } from '../brands/brand-directory';
import {
  LIMIT_FIELDS,
  type AgentLimitValues,
  type LimitChanges,
  type LimitField,
} from '../../workflows/access-request-api';
import type { AccessRequestDoc } from './access-request.model';
import type { AccessTokenDoc } from './access-token.model';

export type { AgentLimitValues, LimitChanges };

/** The limits a stored record holds (a token, an agent user, what a request asked for); absent reads as none. */
export const limitValuesOf = (record: Partial<Record<LimitField, unknown>>): AgentLimitValues =>
  Object.fromEntries(
    LIMIT_FIELDS.map((f) => [f, typeof record[f] === 'number' ? record[f] : null]),
  ) as AgentLimitValues;

/** What an approval would grant, and from what: the agent's asking and its brands' default requests per minute. */
export type LimitOffer = Schemas['LimitOffer'];

/**
 * What approving a request unchanged grants in these brands: the limits the agent asked for and, where it asked for
 * no requests per minute, the brands' default_rate_limit (the lowest of them; none for a token without a brand).
 */
export async function offeredLimits(
  request: Pick<AccessRequestDoc, 'client_id' | 'profile'>,
  brandIds: number[],
): Promise<LimitOffer> {
  const requested = limitValuesOf((request.profile ?? {}) as Record<string, unknown>);
  const brandDefault =
    requested.rate_limit_rpm === null && request.client_id
      ? await brandDirectory.agentRateLimitDefault(request.client_id, brandIds)
      : null;
  return {
    requested,
    brand_default_rpm: brandDefault,
    offered: { ...requested, rate_limit_rpm: requested.rate_limit_rpm ?? brandDefault },
  };
}

/**
 * Limits with changes made to them: an approver's to the offer, an administrator's to an agent's (a field left out
 * stays as it was; null is no limit).
 */
export function changedLimits(current: AgentLimitValues, changes: LimitChanges = {}): AgentLimitValues {
  return Object.fromEntries(
    LIMIT_FIELDS.map((f) => [f, changes[f] === undefined ? current[f] : changes[f]]),
  ) as AgentLimitValues;
}

/** One allowance an agent's request may count against: one of its agent users' (one per brand), or its token's. */
export interface LimitHolder {
  /** What its windows are counted under: the agent user's id (a rotated token keeps its count), or `token:<id>`. */
  subject: string;
  /** The agent user's brand; null for the token's own limits. */
  brandId: number | null;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
}

/**
 * Whose limits an agent token is held to, decided here only: its active agent users' (one per brand, each with the
 * limits approved or set since by the brand's admins); while it acts for no brand (its client had none when it was
 * approved, or every brand was taken off it), the token's own, as approved or set since by its client's
 * administrators. Spending needs a brand (the relays act for one), so only an agent user's budget is ever spent.
 */
export function limitHolders(caller: Caller): LimitHolder[] {
  const users = caller.agentUsers ?? [];
  if (users.length)
    return users.map((u) => ({
      subject: u.agentUserId,
      brandId: u.brandId,
      rateLimitRpm: u.rateLimitRpm,
      rateLimitRpd: u.rateLimitRpd,
    }));
  const own = limitValuesOf((caller.accessToken ?? {}) as Partial<AccessTokenDoc>);
  return [
    {
      subject: `token:${caller.tokenId}`,
      brandId: null,
      rateLimitRpm: own.rate_limit_rpm,
      rateLimitRpd: own.rate_limit_rpd,
    },
  ];
}

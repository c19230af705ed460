import { ProviderError } from '../errors';
import { callJson, type SourceEndpoint } from './source';

const PROVIDER = 'social';

export interface SocialAccount {
  network: string;
  handle: string;
}

export interface SocialAccountFigures extends SocialAccount {
  followers: number | null;
  engagement_rate: number | null;
  error: string | null;
}

/** Per network: `{analytics: {...}}` or `{status: 'error', message}` (Ayrshare `POST /api/analytics/social`). */
type NetworkAnswer = { analytics?: Record<string, unknown>; status?: string; message?: string };

const countOf = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);
const rateOf = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/**
 * Follower counts and, where a network reports it, engagement of the configured accounts, in one
 * call to the social-media management API. A network that cannot be read is listed with its error;
 * only a failure of the whole call fails the source.
 */
export function createSocialSource(ep: SourceEndpoint & { accounts: SocialAccount[] }) {
  return {
    async fetch(): Promise<SocialAccountFigures[]> {
      if (!ep.accounts.length) return [];
      const answer = await callJson<Record<string, NetworkAnswer | string>>(
        PROVIDER,
        `${ep.baseUrl.replace(/\/$/, '')}/api/analytics/social`,
        {
          method: 'POST',
          timeoutMs: ep.timeoutMs,
          headers: { authorization: `Bearer ${ep.key}` },
          json: { platforms: ep.accounts.map((a) => a.network) },
        },
      );
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
        throw new ProviderError(PROVIDER, 'malformed', 'answer is not an object');
      return ep.accounts.map((account) => {
        const n = answer[account.network];
        if (typeof n !== 'object' || n === null)
          return { ...account, followers: null, engagement_rate: null, error: 'No answer for this network' };
        if (n.status === 'error' || !n.analytics) {
          return {
            ...account,
            followers: null,
            engagement_rate: null,
            error: String(n.message ?? 'The network could not be read'),
          };
        }
        const followers = countOf(n.analytics.followersCount);
        return {
          ...account,
          followers,
          engagement_rate: rateOf(n.analytics.engagementRate),
          error: followers === null ? 'The network reported no follower count' : null,
        };
      });
    },
  };
}

/** `instagram:@handle,twitter:@handle` → accounts. */
export function parseSocialAccounts(spec: string): SocialAccount[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const at = s.indexOf(':');
      return { network: s.slice(0, at).trim().toLowerCase(), handle: s.slice(at + 1).trim() };
    });
}

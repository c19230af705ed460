import type { Schemas } from '../../lib/contract-types';
import { ProviderError } from '../errors';
import { callJson, num, ratio, type SourceEndpoint } from './source';

const PROVIDER = 'campaigns';

/** One campaign of the outreach platform's analytics (Instantly API v2 `GET /api/v2/campaigns/analytics`). */
interface CampaignAnalytics {
  campaign_id: string;
  campaign_name: string;
  campaign_status: number;
  emails_sent_count: number;
  open_count: number;
  reply_count: number;
  bounced_count: number;
}

const STATUS: Record<number, string> = {
  0: 'draft',
  1: 'running',
  2: 'paused',
  3: 'completed',
  4: 'running',
  [-1]: 'unhealthy',
  [-2]: 'bounce_protected',
  [-99]: 'suspended',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type CampaignFigures = Schemas['CampaignsReport']['campaigns'][number];

/** Per-campaign performance of the window; rates are of delivered messages (sent minus bounced). */
export function createCampaignsSource(ep: SourceEndpoint) {
  return {
    async fetch(window: { from: string; to: string }): Promise<CampaignFigures[]> {
      const url = new URL(`${ep.baseUrl.replace(/\/$/, '')}/api/v2/campaigns/analytics`);
      url.searchParams.set('start_date', window.from);
      url.searchParams.set('end_date', window.to);
      const answer = await callJson<CampaignAnalytics[]>(PROVIDER, url.toString(), {
        timeoutMs: ep.timeoutMs,
        headers: { authorization: `Bearer ${ep.key}` },
      });
      if (!Array.isArray(answer)) throw new ProviderError(PROVIDER, 'malformed', 'answer is not a list of campaigns');
      return answer.map((c) => {
        if (typeof c?.campaign_id !== 'string' || !UUID.test(c.campaign_id))
          throw new ProviderError(PROVIDER, 'malformed', 'a campaign without a campaign_id');
        const sent = num(PROVIDER, c.emails_sent_count, 'emails_sent_count');
        const bounced = Math.min(sent, num(PROVIDER, c.bounced_count, 'bounced_count'));
        const delivered = sent - bounced;
        const opened = num(PROVIDER, c.open_count, 'open_count');
        const replied = num(PROVIDER, c.reply_count, 'reply_count');
        return {
          campaign_id: c.campaign_id.toLowerCase(),
          name: String(c.campaign_name ?? ''),
          status: STATUS[c.campaign_status] ?? 'unknown',
          sent,
          delivered,
          opened,
          replied,
          bounced,
          open_rate: ratio(opened, delivered),
          reply_rate: ratio(replied, delivered),
        };
      });
    },
  };
}

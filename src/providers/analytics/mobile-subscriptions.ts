import { ProviderError } from '../errors';
import { callJson, num, type SourceEndpoint } from './source';

const PROVIDER = 'mobile-subscriptions';

/** A chart of the subscription platform's API v2 (RevenueCat `projects/{id}/charts/{chart}`). */
interface Chart {
  object?: string;
  yaxis_currency?: string;
  values?: { cohort: number; value: number; incomplete?: boolean }[];
}

export interface MobileSubscriptionFigures {
  installs: number;
  trials_started: number;
  new_subscriptions: number;
  active_subscriptions: number;
  churned_subscriptions: number;
  revenue: { amount: number; currency: string };
}

/** Which chart answers which figure, and whether its daily values add up (flows) or the last one counts (a level). */
const CHARTS = {
  installs: ['customers_new', 'sum'],
  trials_started: ['trials_new', 'sum'],
  new_subscriptions: ['actives_new', 'sum'],
  active_subscriptions: ['actives', 'last'],
  churned_subscriptions: ['churned_actives', 'sum'],
  revenue: ['revenue', 'sum'],
} as const;

/**
 * Installs, subscriptions and revenue of the window from the daily charts of one project. The configured
 * URL is the project (`.../v2/projects/<id>`); the key is a bearer secret key.
 */
export function createMobileSubscriptionsSource(ep: SourceEndpoint) {
  const chart = async (name: string, window: { from: string; to: string }) => {
    const url = new URL(`${ep.baseUrl.replace(/\/$/, '')}/charts/${name}`);
    url.searchParams.set('start_date', window.from);
    url.searchParams.set('end_date', window.to);
    url.searchParams.set('resolution', 'day');
    const answer = await callJson<Chart>(PROVIDER, url.toString(), {
      timeoutMs: ep.timeoutMs,
      headers: { authorization: `Bearer ${ep.key}` },
    });
    if (answer.object !== 'chart_data' || !Array.isArray(answer.values))
      throw new ProviderError(PROVIDER, 'malformed', `chart ${name} is not chart_data`);
    return answer;
  };
  return {
    async fetch(window: { from: string; to: string }): Promise<MobileSubscriptionFigures> {
      const entries = Object.entries(CHARTS) as [keyof typeof CHARTS, (typeof CHARTS)[keyof typeof CHARTS]][];
      const charts = await Promise.all(entries.map(([, [name]]) => chart(name, window)));
      const figure = (i: number) => {
        const values = charts[i].values!.map((v) => num(PROVIDER, v.value, `a ${entries[i][1][0]} value`));
        if (entries[i][1][1] === 'last') return values.at(-1) ?? 0;
        return values.reduce((a, b) => a + b, 0);
      };
      const at = (k: keyof typeof CHARTS) => entries.findIndex(([name]) => name === k);
      return {
        installs: figure(at('installs')),
        trials_started: figure(at('trials_started')),
        new_subscriptions: figure(at('new_subscriptions')),
        active_subscriptions: figure(at('active_subscriptions')),
        churned_subscriptions: figure(at('churned_subscriptions')),
        revenue: {
          amount: Math.round(figure(at('revenue')) * 100) / 100,
          currency: charts[at('revenue')].yaxis_currency ?? 'USD',
        },
      };
    },
  };
}

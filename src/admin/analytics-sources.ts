import type { Config } from '../lib/config';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { createProductAnalyticsSource } from '../providers/analytics/product-analytics';
import { createWebAnalyticsSource } from '../providers/analytics/web-analytics';
import { createMobileSubscriptionsSource } from '../providers/analytics/mobile-subscriptions';
import { createCampaignsSource } from '../providers/analytics/campaigns';
import { createSocialSource, parseSocialAccounts } from '../providers/analytics/social';

/** The key the sandbox accepts when a source is left to it. */
const SANDBOX_KEY = 'sbx-key';
const SANDBOX_SOCIAL_ACCOUNTS = 'instagram:@leadservice,twitter:@leadservice,linkedin:lead-service';

const SOURCES = {
  product_analytics: { url: 'PRODUCT_ANALYTICS_URL', key: 'PRODUCT_ANALYTICS_KEY', sandboxPath: '/product-analytics' },
  web_analytics: {
    url: 'WEB_ANALYTICS_URL',
    key: 'WEB_ANALYTICS_KEY',
    sandboxPath: '/web-analytics/v1beta/properties/1001',
  },
  mobile_subscriptions: {
    url: 'MOBILE_SUBSCRIPTIONS_URL',
    key: 'MOBILE_SUBSCRIPTIONS_KEY',
    sandboxPath: '/mobile-subscriptions/v2/projects/proj_sandbox',
  },
  social: { url: 'SOCIAL_ANALYTICS_URL', key: 'SOCIAL_ANALYTICS_KEY', sandboxPath: '/social' },
  campaigns: { url: 'CAMPAIGNS_URL', key: 'CAMPAIGNS_KEY', sandboxPath: '/campaigns' },
} as const;
export type SourceName = keyof typeof SOURCES;

/**
 * Where each analytics source is: its configured URL and key; `none` switches it off; left unset it is
 * not configured in production, and answered by an in-process sandbox server elsewhere (started on
 * first use, with the sandbox's key unless a key is set, so a test can choose a misbehaving one).
 */
export function createAnalyticsSources(config: Config) {
  let sandbox: Promise<Sandbox> | undefined;
  const sandboxUrl = async () => (await (sandbox ??= startSandbox())).url;

  async function endpoint(name: SourceName) {
    const s = SOURCES[name];
    const url = config[s.url];
    const key = config[s.key];
    const timeoutMs = config.ANALYTICS_TIMEOUT_MS;
    if (url === 'none') return null;
    if (url) return key ? { baseUrl: url, key, timeoutMs } : null;
    if (config.NODE_ENV === 'production') return null;
    return { baseUrl: `${await sandboxUrl()}${s.sandboxPath}`, key: key ?? SANDBOX_KEY, timeoutMs };
  }

  const build =
    <T>(name: SourceName, make: (ep: NonNullable<Awaited<ReturnType<typeof endpoint>>>) => T) =>
    async () => {
      const ep = await endpoint(name);
      return ep ? make(ep) : null;
    };

  return {
    productAnalytics: build('product_analytics', createProductAnalyticsSource),
    webAnalytics: build('web_analytics', createWebAnalyticsSource),
    mobileSubscriptions: build('mobile_subscriptions', createMobileSubscriptionsSource),
    campaigns: build('campaigns', createCampaignsSource),
    social: build('social', (ep) => {
      const accounts = config.SOCIAL_ACCOUNTS ?? (config.SOCIAL_ANALYTICS_URL ? '' : SANDBOX_SOCIAL_ACCOUNTS);
      return accounts ? createSocialSource({ ...ep, accounts: parseSocialAccounts(accounts) }) : null;
    }),
    /** The sandbox, if one was started (tests read its request counts). */
    sandbox: () => sandbox,
    async close() {
      if (sandbox) await (await sandbox).stop();
    },
  };
}

export type AnalyticsSources = ReturnType<typeof createAnalyticsSources>;

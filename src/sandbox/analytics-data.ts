import { Seed } from './seed';

/**
 * Deterministic figures of the sandbox's analytics providers: each day of each source has its own
 * numbers (derived from the day, and the country where the source filters by one), so a window's
 * totals are the sum of its days and tests can compute the expected answer themselves.
 */
export const EVENT_CATEGORIES = ['signup', 'search', 'export', 'share', 'upgrade'] as const;

export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (
    let t = Date.parse(`${from}T00:00:00Z`);
    t <= Date.parse(`${to}T00:00:00Z`) && days.length < 3660;
    t += 86_400_000
  ) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

export function productEvents(day: string, country: string | null): Record<string, number> {
  const s = new Seed('product-analytics', day, country ?? 'all');
  const scale = country ? 1 : 5;
  return Object.fromEntries(EVENT_CATEGORIES.map((c) => [c, s.int(0, 40) * scale]));
}

export function webTraffic(day: string, country: string | null) {
  const s = new Seed('web-analytics', day, country ?? 'all');
  const sessions = s.int(50, 400) * (country ? 1 : 4);
  return {
    visitors: Math.round(sessions * 0.7),
    sessions,
    page_views: sessions * 3,
    pages: { '/': sessions, '/blog': sessions - s.int(0, 40), '/pricing': s.int(0, 40) },
    sources: { google: Math.round(sessions * 0.6), direct: sessions - Math.round(sessions * 0.6) },
  };
}

export function mobileChart(chart: string, day: string): number {
  const s = new Seed('mobile-subscriptions', chart, day);
  if (chart === 'actives') return 500 + s.int(0, 100);
  if (chart === 'revenue') return s.int(0, 50_000) / 100;
  return s.int(0, 30);
}

export function socialFollowers(network: string): { followersCount: number; engagementRate?: number } {
  const s = new Seed('social', network);
  return {
    followersCount: s.int(100, 20_000),
    ...(network === 'instagram' ? { engagementRate: s.int(1, 90) / 1000 } : {}),
  };
}

export const CAMPAIGNS = [
  { id: '7a1e5c9b-3f2d-4c6a-9e8b-2d4f6a8c0e75', name: 'Utrecht bakeries spring', status: 1 },
  { id: '0f3a9c2e-5b7d-4e1f-8a6c-9d2b4e6f8a01', name: 'Rotterdam florists', status: 3 },
];

export function campaignDay(campaignId: string, day: string) {
  const s = new Seed('campaigns', campaignId, day);
  const sent = s.int(0, 60);
  const bounced = s.int(0, Math.floor(sent / 10));
  const opened = s.int(0, sent - bounced);
  return { sent, bounced, opened, replied: s.int(0, Math.floor(opened / 3)) };
}

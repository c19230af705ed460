import { ProviderError } from '../errors';
import { callJson, num, type SourceEndpoint } from './source';

const PROVIDER = 'product-analytics';

/** Event segmentation answer (Amplitude Dashboard REST API, `/api/2/events/segmentation`). */
interface SegmentationAnswer {
  data?: { seriesLabels?: [number, string][]; seriesCollapsed?: { setId: string; value: number }[][] };
}

export interface ProductAnalyticsFigures {
  total_events: number;
  categories: { category: string; count: number }[];
}

const compact = (day: string) => day.replace(/-/g, '');

/**
 * Product-analytics events of the window grouped by their `category` property: one segmentation
 * query over all events (`_all`), optionally segmented to one country. Auth: HTTP Basic of
 * `api_key:secret_key` (the configured key).
 */
export function createProductAnalyticsSource(ep: SourceEndpoint) {
  return {
    async fetch(window: { from: string; to: string }, country: string | null): Promise<ProductAnalyticsFigures> {
      const url = new URL(`${ep.baseUrl.replace(/\/$/, '')}/api/2/events/segmentation`);
      url.searchParams.set(
        'e',
        JSON.stringify({ event_type: '_all', group_by: [{ type: 'event', value: 'category' }] }),
      );
      url.searchParams.set('start', compact(window.from));
      url.searchParams.set('end', compact(window.to));
      url.searchParams.set('m', 'totals');
      if (country) url.searchParams.set('s', JSON.stringify([{ prop: 'country', op: 'is', values: [country] }]));
      const answer = await callJson<SegmentationAnswer>(PROVIDER, url.toString(), {
        timeoutMs: ep.timeoutMs,
        headers: { authorization: `Basic ${Buffer.from(ep.key).toString('base64')}` },
      });
      const labels = answer.data?.seriesLabels;
      const collapsed = answer.data?.seriesCollapsed;
      if (!Array.isArray(labels) || !Array.isArray(collapsed) || labels.length !== collapsed.length) {
        throw new ProviderError(
          PROVIDER,
          'malformed',
          'segmentation answer without matching seriesLabels and seriesCollapsed',
        );
      }
      const categories = labels.map(([, category], i) => ({
        category: String(category),
        count: num(PROVIDER, collapsed[i]?.[0]?.value, 'an event count'),
      }));
      categories.sort((a, b) => b.count - a.count || a.category.localeCompare(b.category));
      return { total_events: categories.reduce((n, c) => n + c.count, 0), categories };
    },
  };
}

import { windowDays, daysOf, type KpiWindow } from './kpi-window';
import {
  activeAgents,
  agentsApproved,
  clientFigures,
  mapsJobFigures,
  pagesPublished,
  pinsCreated,
  postsPublished,
  relayFigures,
  researchJobFigures,
  type KpiScope,
} from './kpi-figures';

/** Longest window that gets a daily series (one indexed aggregation per day). */
export const DAILY_SERIES_MAX_DAYS = 92;
const DAY_MS = 86_400_000;
const DAILY_CONCURRENCY = 8;

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(lanes);
  return out;
}

/** Per submission day: maps-scrape jobs that completed and the businesses they found. */
async function dailySeries(scope: KpiScope) {
  if (windowDays(scope.window) > DAILY_SERIES_MAX_DAYS) return [];
  return mapLimited(daysOf(scope.window), DAILY_CONCURRENCY, async (date) => {
    const start = new Date(`${date}T00:00:00Z`);
    const day = await mapsJobFigures(scope, { start, end: new Date(start.getTime() + DAY_MS) });
    return { date, jobs_completed: day.by_status.completed, businesses_found: day.results };
  });
}

/** The headline KPIs of one scope and window, all figures computed concurrently. */
export async function computeKpis(scope: KpiScope) {
  const [maps, research, clients, posts, pages, approved, active, pins, relays, daily] = await Promise.all([
    mapsJobFigures(scope),
    researchJobFigures(scope),
    clientFigures(scope),
    postsPublished(scope),
    pagesPublished(scope),
    agentsApproved(scope),
    activeAgents(scope),
    pinsCreated(scope),
    relayFigures(scope),
    dailySeries(scope),
  ]);
  return {
    window: scope.window,
    generated_at: new Date().toISOString(),
    country: scope.country,
    totals: {
      jobs_submitted: maps.submitted,
      jobs_completed: maps.by_status.completed,
      jobs_failed: maps.by_status.failed,
      jobs_by_status: maps.by_status,
      businesses_found: maps.results,
      research_jobs_submitted: research.submitted,
      research_jobs_by_status: research.by_status,
      companies_researched: research.results,
      clients: clients.clients,
      active_clients: clients.active_clients,
      posts_published: posts,
      pages_published: pages,
      agents_approved: approved,
      active_agents: active,
      pins_created: pins,
      relay_calls: relays.calls,
      relay_spend: relays.spend,
    },
    // Every figure has its records now; a figure added before its source exists would be listed here.
    untracked: [],
    daily,
  };
}

/** The cache key of a scoped, windowed report. */
export const scopeKey = (
  report: string,
  scope: { clientId: string | null; window?: KpiWindow; country?: string | null },
) =>
  [
    report,
    scope.clientId ?? 'all',
    scope.window ? `${scope.window.from}..${scope.window.to}` : '-',
    scope.country ?? '-',
  ].join(':');

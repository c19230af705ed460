import type { Schemas } from '../lib/contract-types';
import type { ShippedKind } from './activity-event.model';
import { eventsBetween } from './shifts.service';
import { utcDay } from './shifts';

export const WINDOW_DAYS = 7;
export const BASELINE_DAYS = 30;
/** Counts are whole events: a baseline that varies by less than one event a day counts as varying by one. */
export const MIN_DEVIATION = 1;
const DAY_MS = 24 * 3600_000;

export type Anomaly = Schemas['Anomaly'];

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places;
const severityOf = (absZ: number): Anomaly['severity'] | null =>
  absZ >= 4 ? 'high' : absZ >= 3 ? 'medium' : absZ >= 2 ? 'low' : null;

const METRIC_WORDS: Record<string, string> = {
  events: 'activity events',
  jobs_failed: 'failed jobs',
  jobs_submitted: 'submitted jobs',
  posts_published: 'published posts',
  pages_published: 'published pages',
  jobs_completed: 'completed jobs',
  research_completed: 'completed research jobs',
  pins_claimed: 'claimed pins',
};

/** The metrics one event counts toward. */
function metricsOf(e: { action: string; shipped: ShippedKind | null }): string[] {
  const m = ['events'];
  if (e.shipped) m.push(e.shipped);
  if (e.action === 'job.failed') m.push('jobs_failed');
  if (e.action === 'submitMapsScrapeJob' || e.action === 'submitResearchJob') m.push('jobs_submitted');
  return m;
}

/**
 * Daily counts per metric, client-wide (actor null) and per actor (events only), for `days` days
 * starting at `firstDay`; returns a map series-key → counts by day index.
 */
export function dailySeries(
  events: { actor_id: string; action: string; shipped: ShippedKind | null; at: Date }[],
  firstDay: Date,
  days: number,
) {
  const series = new Map<string, { metric: string; actor_id: string | null; counts: number[] }>();
  const bump = (metric: string, actor: string | null, day: number) => {
    const key = `${metric}\u0000${actor ?? ''}`;
    let s = series.get(key);
    if (!s) series.set(key, (s = { metric, actor_id: actor, counts: new Array(days).fill(0) }));
    s.counts[day]++;
  };
  for (const e of events) {
    const day = Math.floor((e.at.getTime() - firstDay.getTime()) / DAY_MS);
    if (day < 0 || day >= days) continue;
    for (const metric of metricsOf(e)) bump(metric, null, day);
    bump('events', e.actor_id, day);
  }
  return series;
}

/**
 * Findings per day and metric over the last 7 days (today included) against the 30 days before:
 * z = (observed - mean) / max(stddev, 1); |z| ≥ 2 is reported (low), ≥ 3 medium, ≥ 4 high. Today is
 * not over yet, so it is never reported as below its baseline.
 */
export function findAnomalies(events: Parameters<typeof dailySeries>[0], now: Date) {
  const today = new Date(`${utcDay(now)}T00:00:00.000Z`);
  const windowFrom = new Date(today.getTime() - (WINDOW_DAYS - 1) * DAY_MS);
  const baselineFrom = new Date(windowFrom.getTime() - BASELINE_DAYS * DAY_MS);
  const series = dailySeries(events, baselineFrom, BASELINE_DAYS + WINDOW_DAYS);
  const anomalies: Anomaly[] = [];
  for (const { metric, actor_id, counts } of series.values()) {
    const baseline = counts.slice(0, BASELINE_DAYS);
    const mean = baseline.reduce((a, b) => a + b, 0) / BASELINE_DAYS;
    const stddev = Math.sqrt(baseline.reduce((a, b) => a + (b - mean) ** 2, 0) / BASELINE_DAYS);
    for (let i = 0; i < WINDOW_DAYS; i++) {
      const observed = counts[BASELINE_DAYS + i];
      const z = (observed - mean) / Math.max(stddev, MIN_DEVIATION);
      const severity = severityOf(Math.abs(z));
      const isToday = i === WINDOW_DAYS - 1;
      if (!severity || (isToday && z < 0)) continue;
      const day = utcDay(new Date(windowFrom.getTime() + i * DAY_MS));
      const words = METRIC_WORDS[metric] ?? metric;
      anomalies.push({
        metric,
        actor_id,
        day,
        observed,
        baseline_mean: round(mean),
        baseline_stddev: round(stddev),
        z_score: round(z),
        direction: z > 0 ? 'above' : 'below',
        severity,
        message:
          `${observed} ${words}${actor_id ? ' by this actor' : ''} on ${day}` +
          ` against a usual ${round(mean, 1)} (±${round(stddev, 1)})`,
      });
    }
  }
  anomalies.sort(
    (a, b) =>
      Math.abs(b.z_score) - Math.abs(a.z_score) || a.day.localeCompare(b.day) || a.metric.localeCompare(b.metric),
  );
  return {
    window_from: utcDay(windowFrom),
    window_to: utcDay(today),
    baseline_days: BASELINE_DAYS,
    baselineFrom,
    anomalies,
  };
}

export async function anomalyReport(clientId: string, now = new Date()) {
  const baselineFrom = new Date(
    new Date(`${utcDay(now)}T00:00:00.000Z`).getTime() - (WINDOW_DAYS - 1 + BASELINE_DAYS) * DAY_MS,
  );
  const events = await eventsBetween<'actor_id' | 'action' | 'shipped' | 'at'>(
    clientId,
    baselineFrom,
    new Date(now.getTime() + 1),
    { _id: 0, actor_id: 1, action: 1, shipped: 1, at: 1 },
  );
  const { baselineFrom: _b, ...report } = findAnomalies(events, now);
  return { ...report, generated_at: now.toISOString() };
}

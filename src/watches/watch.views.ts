import type { Schemas } from '../lib/contract-types';
import { iso } from '../lib/ids';
import { watchScheduleId } from '../../workflows/watches-api';
import type { Cadence } from './cadence';
import type { WatchDoc, WatchRunDoc } from './watch.model';

/** A run as the API shows it (schema WatchRun). */
export function toWatchRun(d: WatchRunDoc): Schemas['WatchRun'] {
  const skipped = d.status === 'skipped';
  return {
    run_id: d._id,
    job_id: skipped ? null : d._id, // a skipped run's job was never made
    ...(skipped && {
      skip_code: (d.skip_code ?? null) as Schemas['WatchRun']['skip_code'],
      skip_reason: d.skip_reason ?? null,
    }),
    watch_id: d.watch_id,
    job_type: d.job_type,
    scheduled_at: iso(d.scheduled_at),
    status: d.status as Schemas['WatchRun']['status'],
    results_count: d.results_count ?? 0,
    new_leads_count: d.new_leads_count ?? 0,
    new_leads: d.new_leads ?? [],
    started_at: iso(d.created_at),
    completed_at: iso(d.completed_at),
  };
}

/**
 * A watch as the API shows it (schema Watch): its job's parameters under `maps_scrape` or `research`; a single
 * watch's answers add the next run times (from Temporal; left out when Temporal did not give them: null) and its
 * last run.
 */
export function toWatch(
  d: WatchDoc,
  detail?: { nextRuns: Date[] | null; lastRun: WatchRunDoc | null },
): Schemas['Watch'] {
  const job =
    d.job_type === 'research'
      ? { research: d.params as Schemas['WatchResearch'] }
      : { maps_scrape: d.params as Schemas['WatchMapsScrape'] };
  return {
    watch_id: d._id,
    client_id: d.client_id,
    name: d.name,
    job_type: d.job_type,
    ...job,
    cadence: d.cadence as Cadence,
    catchup_window_seconds: d.catchup_window_seconds,
    webhook_url: d.webhook_url ?? null,
    state: d.state,
    paused_reason: (d.paused_reason ?? null) as Schemas['Watch']['paused_reason'],
    creator: d.creator ? { kind: d.creator.kind, id: d.creator.id, brand_ids: d.creator.brand_ids ?? [] } : null,
    schedule_id: watchScheduleId(d._id),
    ...(detail
      ? {
          ...(detail.nextRuns ? { next_runs: detail.nextRuns.slice(0, 10).map((t) => t.toISOString()) } : {}),
          ...(detail.lastRun ? { last_run: toWatchRun(detail.lastRun) } : {}),
        }
      : {}),
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

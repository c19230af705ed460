// Ids and types a watch's runs share with the API that schedules them (src/watches/watches.workflows.ts).
import type { JobEvent } from '../src/events/event-bus';
import type { JobRun } from './jobs-signals';

/** A watch's Temporal Schedule: one per watch, found in the Temporal UI's Schedules. */
export const watchScheduleId = (watchId: string) => `watch-${watchId}`;

/** The workflow id a watch's runs start under; Temporal adds each run's time: `watch-<id>-run-2025-03-17T06:00:00Z`. */
export const watchRunWorkflowId = (watchId: string) => `watch-${watchId}-run`;

/** What the schedule starts each run with: which watch, and whose (the run reads the rest from the watch's record). */
export interface WatchRunInput {
  watch_id: string;
  client_id: string;
}

/** What a run's first step answers: the job to run (its workflow, as every job's is started), or why there is none. */
export type WatchRunStart = { job: JobRun } | { job: null; reason: string };

/** How a run's job ended and what the run saw first; `event` is the watch.new_leads published, when there were any. */
export interface WatchRunEnd {
  status: 'completed' | 'failed' | 'cancelled';
  new_leads_count: number;
  event: JobEvent | null;
}

export interface WatchRunOutcome {
  status: 'skipped' | WatchRunEnd['status'];
  job_id?: string;
  new_leads_count?: number;
  /** Why a run did nothing (its watch was deleted, its client deactivated). */
  reason?: string;
}

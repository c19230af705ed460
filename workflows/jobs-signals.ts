// Signals, queries and inputs of the job workflows, shared by the workflows and the API that starts and signals them.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { JobEvent } from '../src/events/event-bus';
import type { MapsJobParams } from '../src/jobs/maps-scrape';

/** A job's run has the job's id as its workflow id: one run per job, found in the Temporal UI by that id. */
export const jobWorkflowId = (jobId: string) => jobId;
/** The delivery of one of the job's events to its webhook, a child of the job's run. */
export const jobWebhookWorkflowId = (jobId: string, event: string) => `${jobId}-webhook-${event}`;
/** The feed of the job's results into the search index, a child of the job's run. */
export const jobIndexWorkflowId = (jobId: string) => `${jobId}-index`;

/** Retry and liveness settings of the job activities (tests shorten them). */
export interface RetryTuning {
  initial_ms?: number;
  max_attempts?: number;
  heartbeat_timeout_ms?: number;
}

export interface JobInputBase {
  job_id: string;
  client_id: string;
  webhook_url?: string | null;
  /** The job.queued event the API published, forwarded to the webhook. */
  queued_event?: JobEvent | null;
  retry?: RetryTuning;
  /** False to leave the job's resources out of the search index (JOB_INDEX_RESULTS=false). */
  index_results?: boolean;
}

export interface MapsScrapeInput extends JobInputBase {
  params: MapsJobParams;
  /** Set when the workflow continued as new: where to pick up. */
  resume?: {
    index: number;
    total: number;
    results_count: number;
    /** Every resource stored so far went through an index feed that took it (absent before this field: false). */
    fed?: boolean;
  };
}

export interface ResearchInput extends JobInputBase {
  /** Companies researched side by side. */
  concurrency?: number;
  resume?: { next: number; total: number; paused: boolean; seq: number };
}

/** A job's workflow as it is to be started: which one, on which task queue, its memo and its input. */
export type JobRun = { taskQueue: string; memo: { client_id: string; job_type: string } } & (
  { type: 'maps-scrape'; input: MapsScrapeInput } | { type: 'research'; input: ResearchInput }
);

export interface JobOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  results_count?: number;
}

/** Pause and resume carry the job's control sequence number: an older signal never undoes a newer one. */
export interface ControlSignal {
  seq: number;
}

export const pauseSignal = defineSignal<[ControlSignal]>('pause');
export const resumeSignal = defineSignal<[ControlSignal]>('resume');
export const researchStateQuery = defineQuery<{
  paused: boolean;
  seq: number;
  next: number;
  done: number;
  total: number;
}>('researchState');

import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';
import type { JobType } from '../jobs/job-records';

export const WATCH_JOB_TYPES = ['maps-scrape', 'research'] as const satisfies readonly JobType[];
export const WATCH_STATES = ['active', 'paused'] as const;

/**
 * A watch: a job's parameters run on a cadence by a Temporal Schedule (`watch-<_id>`), which Temporal keeps; this
 * record is what lists read and what the schedule is made from again (watches.workflows.ts). Only the watch's own
 * operations write it: what its runs find goes to their own records below.
 */
const watchSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    name: { type: String, required: true },
    job_type: { type: String, enum: WATCH_JOB_TYPES, required: true },
    /** The job each run submits (maps-scrape: query, country_code, ...; research: companies). */
    params: { type: Schema.Types.Mixed, required: true },
    /** `{interval_seconds}` or `{cron, time_zone}` (cadence.ts). */
    cadence: { type: Schema.Types.Mixed, required: true },
    catchup_window_seconds: { type: Number, required: true },
    webhook_url: { type: String, default: null },
    state: { type: String, enum: WATCH_STATES, default: 'active' },
    created_by: { type: String, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
watchSchema.index({ client_id: 1, created_at: -1 });
watchSchema.plugin(tenantOwned);

export type WatchDoc = InferSchemaType<typeof watchSchema> & { _id: string; created_at: Date; updated_at: Date };
export const WatchModel = model('Watch', watchSchema, 'watches');

/**
 * One run of a watch, under its job's id: written when the run records its job, and when the job has ended with
 * the leads the run saw first (the first 100 refs; the count is exact).
 */
const watchRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    watch_id: { type: String, required: true },
    job_type: { type: String, enum: WATCH_JOB_TYPES, required: true },
    scheduled_at: { type: Date, required: true },
    status: { type: String, enum: ['running', 'completed', 'failed', 'cancelled'], default: 'running' },
    results_count: { type: Number, default: 0 },
    new_leads_count: { type: Number, default: 0 },
    new_leads: { type: [String], default: [] },
    completed_at: { type: Date, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
watchRunSchema.index({ client_id: 1, watch_id: 1, scheduled_at: -1 });
watchRunSchema.plugin(tenantOwned);

export type WatchRunDoc = InferSchemaType<typeof watchRunSchema> & { _id: string; created_at: Date; updated_at: Date };
export const WatchRunModel = model('WatchRun', watchRunSchema, 'watch_runs');

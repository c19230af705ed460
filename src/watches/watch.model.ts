import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';
import type { JobType } from '../jobs/job-records';

export const WATCH_JOB_TYPES = ['maps-scrape', 'research'] as const satisfies readonly JobType[];
export const WATCH_STATES = ['active', 'paused'] as const;
/** Why the service paused a watch on its own: whoever created it can no longer act (docs/watches.md). */
export const PAUSED_REASONS = ['creator_deactivated', 'creator_token_revoked'] as const;
export type PausedReason = (typeof PAUSED_REASONS)[number];
/** Who a watch runs for: a dashboard user, an agent token, or the client's credential triple. */
export const CREATOR_KINDS = ['user', 'agent', 'client'] as const;

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
    /**
     * Who created it (or resumed it last): its runs are theirs, and the watch pauses when they can no longer act (a
     * user deactivated or deleted, an agent token revoked). An agent's brands are those it created it for: its runs
     * count against their job bounds, and it pauses when the token no longer acts for any of them. Null on records
     * from before the field (they pause for nobody).
     */
    creator: {
      type: new Schema(
        {
          kind: { type: String, enum: CREATOR_KINDS, required: true },
          id: { type: String, required: true },
          brand_ids: { type: [Number], default: [] },
        },
        { _id: false },
      ),
      default: null,
    },
    /** Set when the service paused it because its creator can no longer act; cleared by a resume. */
    paused_reason: { type: String, enum: [...PAUSED_REASONS, null], default: null },
    /** The last triggerWatch: the next is refused within WATCH_TRIGGER_MIN_INTERVAL_SECONDS of it (or of a run). */
    last_triggered_at: { type: Date, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
watchSchema.index({ client_id: 1, created_at: -1 });
watchSchema.index({ 'creator.kind': 1, 'creator.id': 1 }); // the watches of a user or token that is gone
watchSchema.plugin(tenantOwned);

export type WatchDoc = InferSchemaType<typeof watchSchema> & { _id: string; created_at: Date; updated_at: Date };
export const WatchModel = model('Watch', watchSchema, 'watches');

/**
 * One run of a watch, under its job's id: written when the run records its job, and when the job has ended with
 * the leads the run saw first (the first 100 refs; the count is exact). A run whose job a bound refused is written
 * `skipped`, under the id its job would have had (there is no job).
 */
const watchRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    watch_id: { type: String, required: true },
    job_type: { type: String, enum: WATCH_JOB_TYPES, required: true },
    scheduled_at: { type: Date, required: true },
    status: { type: String, enum: ['running', 'completed', 'failed', 'cancelled', 'skipped'], default: 'running' },
    /** A skipped run's reason: the code of the bound that refused its job, or why its watch could not run. */
    skip_code: { type: String, default: null },
    skip_reason: { type: String, default: null },
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

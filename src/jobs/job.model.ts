import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';
import type { JsonBody } from '../lib/contract-types';

export const JOB_TYPES = ['maps-scrape', 'research'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** What a maps-scrape job runs with: its submission without the webhook (which the job record keeps apart). */
export type MapsJobParams = Omit<JsonBody<'submitMapsScrapeJob'>, 'webhook_url'>;

/** Final states: nothing changes a job in one of these any more. */
export const FINAL_STATES = ['completed', 'failed', 'cancelled'] as const;
export const isFinal = (status: string) => (FINAL_STATES as readonly string[]).includes(status);

/**
 * One job of a client: the record that status, lists and filters read (they never ask Temporal).
 * The job's workflow keeps it current through activities; `_id` is also the workflow id.
 * maps-scrape: queued → processing → completed | failed | cancelled.
 * research:    queued → running ⇄ paused → completed | failed | cancelled.
 */
const jobSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    type: { type: String, enum: JOB_TYPES, required: true },
    status: { type: String, required: true },
    /** The submitted parameters (maps-scrape: query, country_code, ...; research: companies or source_job_id). */
    params: { type: Schema.Types.Mixed, required: true },
    progress: {
      done: { type: Number, default: 0 },
      total: { type: Number, default: 0 },
    },
    message: { type: String, default: null },
    results_count: { type: Number, default: 0 },
    companies_total: { type: Number, default: 0 },
    error: { type: String, default: null },
    webhook_url: { type: String, default: null },
    created_by: { type: String, default: null },
    /**
     * Who submitted it, as the activity log names them (the user, the agent token or the client's credentials): its
     * outcome is credited to them without looking for the submit in the log, a read the devstack's FerretDB answers
     * only by decoding every event of every client (src/activity/outcomes.ts). Null for a watch's run and for records
     * from before the field.
     */
    submitted_by: {
      type: new Schema(
        {
          id: { type: String, required: true },
          kind: { type: String, required: true },
          name: { type: String, default: null },
          role: { type: String, required: true },
        },
        { _id: false },
      ),
      default: null,
    },
    /** Bumped by every pause/resume/cancel; the workflow ignores control signals older than what it has seen. */
    control_seq: { type: Number, default: 0 },
    started_at: { type: Date, default: null },
    paused_at: { type: Date, default: null },
    /** Time spent paused, left out of processing_time. */
    paused_ms: { type: Number, default: 0 },
    completed_at: { type: Date, default: null },
    /** The watch whose run this job is (src/watches): that run starts the job's workflow, not the start sweep. */
    watch_id: { type: String, default: null },
    /**
     * The brands an agent submitted it for (its X-Brand-Id, or every brand of its token): the job counts against
     * their bounds as well as its client's until it ends (job-quotas.ts). Empty for everyone else's jobs.
     */
    brand_ids: { type: [Number], default: [] },
    /** Job events already published for this job, so a retried activity does not publish one twice. */
    events_sent: { type: [String], default: [] },
  },
  { ...baseSchemaOptions, minimize: false },
);
jobSchema.index({ client_id: 1, type: 1, created_at: -1 });
jobSchema.index({ client_id: 1, type: 1, status: 1, created_at: -1 });
jobSchema.index({ type: 1, created_at: -1 });
jobSchema.index({ status: 1, created_at: 1 }); // the start sweep: queued jobs, oldest first
jobSchema.plugin(tenantOwned);

export type JobDoc = InferSchemaType<typeof jobSchema> & { _id: string; created_at: Date; updated_at: Date };
export const JobModel = model('Job', jobSchema, 'jobs');

/**
 * What a job found or was given, in order: `kind: 'result'` items are the job's results (a scraped
 * business, a researched company), `kind: 'input'` items are the companies a research job works
 * through. Ids are deterministic (`<job>:<kind>:<key>`), so a retried activity writes the same items.
 */
const jobItemSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    job_id: { type: String, required: true },
    kind: { type: String, enum: ['input', 'result'], required: true },
    seq: { type: Number, required: true },
    /** False for a research result where nothing could be read (the company is counted, not listed). */
    found: { type: Boolean, default: true },
    data: { type: Schema.Types.Mixed, required: true },
  },
  { ...baseSchemaOptions, minimize: false },
);
jobItemSchema.index({ client_id: 1, job_id: 1, kind: 1, seq: 1 });
jobItemSchema.plugin(tenantOwned);

export const JobItemModel = model('JobItem', jobItemSchema, 'job_items');
export const jobItemId = (jobId: string, kind: 'input' | 'result', key: string | number) => `${jobId}:${kind}:${key}`;

/**
 * The filter of one job's items of a kind. It also bounds `_id` to the job's id prefix: an engine with
 * only its `_id` index (the devstack's FerretDB) then reads the job's items, not every job's.
 */
export const jobItemsOf = (clientId: string, jobId: string, kind: 'input' | 'result') => ({
  _id: { $gte: `${jobId}:${kind}:`, $lt: `${jobId}:${kind};` }, // ';' follows ':'
  client_id: clientId,
  job_id: jobId,
  kind,
});

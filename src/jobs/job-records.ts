import { insertNew } from '../lib/bulk-writes';
import { FINAL_STATES, JobItemModel, JobModel, jobItemId, jobItemsOf } from './job.model';

/**
 * The final states (a job in one no longer changes), the job record's type and the job types, for the areas built on
 * jobs.
 */
export { FINAL_STATES, isFinal, type JobDoc, type JobType } from './job.model';

/** Finished jobs whose items are removed in one step: a bounded `$in`, and progress between steps. */
const JOBS_PER_STEP = 200;

type ItemKind = 'input' | 'result';

/** An item of a job: one of its inputs (a company to research) or results (a business, a company found). */
export interface JobItem {
  kind: ItemKind;
  seq: number;
  /** False for a research result where nothing could be read (the company is counted, not listed). */
  found: boolean;
  data: Record<string, unknown>;
}

/**
 * A job's items as the job types built on the jobs area's records read and write them (research takes its input
 * from a maps-scrape job's results and writes its own): ids are deterministic (`<job>:<kind>:<seq>`), so a
 * retried activity writes the same items again, never new ones.
 */
export const jobItems = {
  /** The item at `seq`, if written. */
  one(clientId: string, jobId: string, kind: ItemKind, seq: number): Promise<JobItem | null> {
    return JobItemModel.findOne({ _id: jobItemId(jobId, kind, seq), client_id: clientId })
      .lean<JobItem>()
      .exec();
  },

  /** Writes items that are not there yet; answers how many were new. */
  insert(clientId: string, jobId: string, items: JobItem[], now = new Date()): Promise<number> {
    return insertNew(
      JobItemModel,
      items.map((item) => ({
        _id: jobItemId(jobId, item.kind, item.seq),
        client_id: clientId,
        job_id: jobId,
        ...item,
        created_at: now,
        updated_at: now,
      })),
    );
  },

  /** How many results the job has (only those where something was found, with `found`). */
  countResults(clientId: string, jobId: string, opts: { found?: true } = {}): Promise<number> {
    return JobItemModel.countDocuments({ ...jobItemsOf(clientId, jobId, 'result'), ...opts }).exec();
  },

  /** The job's results whose data has every field of `having` set, in the order found, at most `limit`. */
  resultsHaving(clientId: string, jobId: string, having: string[], limit: number): Promise<JobItem[]> {
    const set = Object.fromEntries(having.map((field) => [`data.${field}`, { $ne: null }]));
    return JobItemModel.find({ ...jobItemsOf(clientId, jobId, 'result'), ...set })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<JobItem[]>()
      .exec();
  },

  /**
   * The items (results and progress) of jobs that finished before `cutoff`, a batch of jobs at a time, and with each
   * batch what `alongside` removes of them in other areas (the resource lists they wrote); the jobs themselves stay
   * (their status and counts), and their lead data stays in the resource layer. Answers how many records went.
   */
  async purgeItemsOfJobsFinishedBefore(
    cutoff: Date,
    alongside: (jobs: { _id: string; client_id: string }[]) => Promise<number> = async () => 0,
  ): Promise<number> {
    let removed = 0;
    let after = '';
    for (;;) {
      const jobs = await JobModel.find(
        { status: { $in: FINAL_STATES }, completed_at: { $lt: cutoff }, _id: { $gt: after } },
        { _id: 1, client_id: 1 },
      )
        .setOptions({ allTenants: true }) // every tenant's finished jobs
        .sort({ _id: 1 })
        .limit(JOBS_PER_STEP)
        .lean<{ _id: string; client_id: string }[]>();
      if (jobs.length === 0) return removed;
      // Each item is matched by its own job.
      const { deletedCount } = await JobItemModel.deleteMany({
        client_id: { $in: [...new Set(jobs.map((j) => j.client_id))] },
        job_id: { $in: jobs.map((j) => j._id) },
      });
      removed += deletedCount + (await alongside(jobs));
      after = jobs[jobs.length - 1]._id;
    }
  },
};

import { workflowEnded } from '../lib/engines/temporal';
import { AppError } from '../lib/errors';
import { findPage, type Page } from '../lib/pagination';
import { coalescedReads } from '../lib/coalesced-reads';
import { tenantQuery } from '../lib/tenancy';
import type { IdempotencyClaim } from '../lib/http/idempotency';
import type { ActivityActor } from '../activity/recorder';
import { JobModel, isFinal, type JobDoc, type JobType } from './job.model';
import type { JobQuotas } from './job-quotas';
import type { JobLocks } from './job-lock';
import type { JobListIndex, ListPage } from './job-list-index';
import { createJobStarter, type JobStarterDeps } from './job-starter';
import { createListPageCache } from './list-page-cache';

/** Who submits a job: the tenant it runs for, who asks, and whether a super_admin chose that tenant. */
export interface Submitter {
  clientId: string;
  isSuperAdmin: boolean;
  userId: string | null;
  /** The caller as the activity log names it: the job's outcome is credited to them. */
  actor: ActivityActor | null;
  /** The submit's Idempotency-Key, claimed (the job's id derives from it). */
  idempotency?: IdempotencyClaim;
  /** The brands an agent acts for (its X-Brand-Id, or every brand of its token); empty for everyone else. */
  brandIds: number[];
  /** Sets the RateLimit fields of the tenants' job bounds on the answer (job-quotas.ts). */
  showQuota?: (fields: Record<string, string>) => void;
}

export interface JobControlDeps extends JobStarterDeps {
  locks: JobLocks;
  /** The tenants' counts of unfinished jobs, which a job cancelled here leaves. */
  quotas?: Pick<JobQuotas, 'release'>;
}

const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

/**
 * The API side of jobs, shared by the jobs and research areas: accepts them (see job-starter), and
 * finds, lists and changes them within the caller's tenancy.
 */
export function createJobControl(deps: JobControlDeps) {
  const starter = createJobStarter(deps);
  const listReads = coalescedReads<{ docs: JobDoc[]; total: number }>();
  const pages = createListPageCache();

  return {
    submit: starter.submit,
    /** Records and announces a job whose workflow its caller starts (a watch's run): see job-starter. */
    record: starter.record,
    /** Starts the workflows of queued jobs that have none yet (runs on a timer; callable for tests and tools). */
    sweep: starter.sweep,
    /** Stops the start sweep and waits for workflow starts in flight. */
    close: starter.close,

    /** A job of this type within the tenancy (null scope: a super_admin seeing all clients), or 404. */
    async find(scope: string | null, jobId: string, type: JobType): Promise<JobDoc> {
      const tenant = tenantQuery(scope);
      const doc = await JobModel.findOne({ _id: jobId, ...tenant.filter, type }, null, tenant.options).lean<JobDoc>();
      if (!doc) throw AppError.notFound(type === 'research' ? 'Research job not found' : 'Job not found');
      return doc;
    },

    /**
     * Jobs of one type within a tenancy (null: all clients, for a super_admin), newest first. A tenant's list is
     * answered from its index (job-list-index.ts: order and count without reading every record) and the page's jobs
     * by id, fresh; a status filter (whose members change with every state change), the all-clients list and a
     * Redis that cannot be used read the records. The same page asked for by many at once is read once for them, and
     * a page whose jobs did not change since this process last read it is not read again (list-page-cache.ts).
     */
    list(scope: string | null, type: JobType, status: string | undefined, page: Page) {
      const tenant = tenantQuery(scope);
      const query = {
        filter: { type, ...tenant.filter, ...(status ? { status } : {}) },
        sort: NEWEST_FIRST,
        options: tenant.options,
      };
      const key = JSON.stringify([scope, type, status ?? null, page.skip, page.page_size]);
      return listReads(key, async () => {
        const indexed =
          scope !== null &&
          status === undefined &&
          (await deps.listIndex.page(scope, type, page.skip, page.page_size, () =>
            JobModel.find(query.filter, { _id: 1, created_at: 1 }).lean<{ _id: string; created_at: Date }[]>(),
          ));
        if (!indexed) return findPage<JobDoc>(JobModel, query, page);
        const cached = pages.get(key, indexed);
        if (cached) return cached;
        const read = await jobsOf(scope!, type, indexed, deps.listIndex);
        pages.set(key, indexed, read);
        return read;
      });
    },

    /**
     * Moves a job from one of `from` to a new state under its record lock (bumping its control
     * sequence, so the workflow can tell newer signals from older ones), then tells the workflow; if
     * Temporal cannot be told, the change is undone and the caller gets the error. Of two concurrent
     * requests (pause and pause, pause and cancel) exactly one sees the state it expects.
     */
    async transition(
      doc: JobDoc,
      from: string[],
      change: (current: JobDoc) => Record<string, unknown>,
      tell: (seq: number) => Promise<void>,
      describe: (status: string) => string,
    ): Promise<JobDoc> {
      const key = { _id: doc._id, client_id: doc.client_id };
      return deps.locks.run(doc._id, async () => {
        const current = await JobModel.findOne(key).lean<JobDoc>();
        if (!current || !from.includes(current.status))
          throw AppError.conflict(describe(current?.status ?? doc.status));
        const set = change(current);
        const seq = current.control_seq + 1;
        await JobModel.updateOne(key, { $set: { ...set, control_seq: seq } });
        await deps.listIndex.changed(doc.client_id);
        try {
          await tell(seq);
        } catch (err) {
          // A workflow that is already closed needs no telling; anything else undoes the change.
          if (!workflowEnded(err)) {
            const back = Object.fromEntries(
              Object.keys(set).map((k) => [k, (current as Record<string, unknown>)[k] ?? null]),
            );
            await JobModel.updateOne(key, { $set: { ...back, control_seq: seq + 1 } });
            await deps.listIndex.changed(doc.client_id);
            throw err;
          }
        }
        const changed = { ...current, ...set, control_seq: seq } as JobDoc;
        if (isFinal(changed.status))
          await deps.quotas?.release(changed._id, changed.client_id, changed.brand_ids ?? []);
        return changed;
      });
    },
  };
}

/**
 * The page's jobs by id, in the index's order. An id without its record (an undone submit whose removal did not reach
 * Redis) is left out, not counted, and removed from the index.
 */
async function jobsOf(clientId: string, type: JobType, page: ListPage, index: JobListIndex) {
  const docs = page.ids.length
    ? await JobModel.find({ _id: { $in: page.ids }, client_id: clientId }).lean<JobDoc[]>()
    : [];
  const byId = new Map(docs.map((d) => [d._id, d]));
  const missing = page.ids.filter((id) => !byId.has(id));
  if (missing.length) await index.removed(clientId, type, missing).catch(() => undefined);
  return { docs: page.ids.flatMap((id) => byId.get(id) ?? []), total: page.total - missing.length };
}

export type JobControl = ReturnType<typeof createJobControl>;

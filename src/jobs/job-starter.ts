import type { EventBus, JobEvent } from '../events/event-bus';
import { AppError } from '../lib/errors';
import { canonicalJson, idempotentId, type IdempotencyClaim } from '../lib/http/idempotency';
import { newId } from '../lib/ids';
import type { Logger } from '../lib/logger';
import type { ActivityActor } from '../activity/recorder';
import { jobsSubmitted } from '../lib/metrics';
import { JobModel, isFinal, type JobDoc, type JobType } from './job.model';
import { eventData } from './job.views';
import { loadJob } from './job-store';
import { createInsertBatcher } from './insert-batcher';
import type { JobWorkflows } from './jobs.workflows';
import type { JobListIndex } from './job-list-index';
import type { JobBacklog } from './job-backlog';
import { withinCaps, type JobLimitsResolver } from './job-limits';
import { quotaFields, quotaRefusal, type Admission, type JobQuotas } from './job-quotas';

/** How a job is recorded: its webhook and submitter, and for a watch's run its id and the watch. */
export interface JobRecordOptions {
  webhookUrl?: string | null;
  createdBy?: string | null;
  /** The submitting request's actor, as the activity log names it (job.model.ts, submitted_by). */
  submittedBy?: ActivityActor | null;
  jobId?: string;
  watchId?: string | null;
  /** The brands an agent submits it for: their bounds apply beside the client's (job-limits.ts). */
  brandIds?: readonly number[];
}

/** The tenants' bounds a job passes before it is recorded (docs/security.md, "Jobs per tenant"). */
export interface TenantBounds {
  limits: Pick<JobLimitsResolver, 'forJob'>;
  quotas: Pick<JobQuotas, 'admit' | 'reconcileBusy'>;
  /** The Retry-After of a refusal by a bound on unfinished jobs (and by the fair share). */
  retryAfterSeconds: number;
}

export interface JobStarterDeps {
  workflows: Pick<JobWorkflows, 'start'>;
  events: EventBus;
  /** The tenants' job lists: told of every job stored or removed. */
  listIndex: JobListIndex;
  /** The bound on unfinished jobs a submit passes before it is recorded (a watch's run is not bounded by it). */
  backlog?: JobBacklog;
  /** Each tenant's own bounds, which every job passes (a watch's run too). */
  tenants?: TenantBounds;
  logger: Logger;
  /** A queued job whose workflow is not known to run after this long is started (again). */
  sweepAfterMs?: number;
  /** False where no API accepts jobs (a worker-only process): nothing there sweeps. */
  sweep?: boolean;
}

/**
 * Accepting a job and starting its workflow. The job record in MongoDB is the durable promise: a
 * submit stores it and announces it (job.queued), answers at once, and starts the workflow right
 * after. If that start fails (Temporal unreachable, the process dies), a sweep in every API process
 * starts the workflows of jobs still queued; a start is idempotent (the workflow id is the job id and
 * a repeated start joins the existing run), so starting twice never runs a job twice. A submit with an
 * Idempotency-Key gets a job id (and so a workflow id) derived from the key: its retry after a crash
 * between the record and the start (no answer was kept) finds the job the first attempt stored and
 * converges on it instead of storing a second one.
 */
export function createJobStarter(deps: JobStarterDeps) {
  const inFlight = new Set<Promise<void>>();
  const inserts = createInsertBatcher(JobModel);
  const sweepAfterMs = deps.sweepAfterMs ?? 10_000;

  function startSoon(doc: JobDoc, queued: JobEvent | null) {
    const p = deps.workflows
      .start(doc, queued)
      .catch((err) => deps.logger.warn({ err, job_id: doc._id }, 'job workflow not started yet; the sweep will retry'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  /**
   * A retried keyed submit whose first attempt stored the job: the same job, started if it still waits for its
   * workflow (the start joins a run that exists). The key with another job's parameters is the client's mistake.
   */
  function convergeOn(earlier: JobDoc, retried: JobDoc): JobDoc {
    const same = (d: JobDoc) => canonicalJson({ type: d.type, params: d.params, webhook_url: d.webhook_url ?? null });
    if (same(earlier) !== same(retried))
      throw new AppError(422, 'This Idempotency-Key was used for another job; send a new key for a new job', {
        code: 'idempotency_key_reused',
        errors: [{ location: 'header', field: 'Idempotency-Key', message: 'used before for another job' }],
      });
    if (earlier.status === 'queued') startSoon(earlier, null);
    return earlier;
  }

  async function sweep() {
    // A watch's job is started by its run's workflow, which Temporal keeps going: the sweep leaves it alone.
    const stale = await JobModel.find(
      { status: 'queued', created_at: { $lt: new Date(Date.now() - sweepAfterMs) }, watch_id: null },
      null,
      { allTenants: true },
    )
      .sort({ created_at: 1 })
      .limit(200)
      .lean<JobDoc[]>();
    // A client whose last job's removal from its count was lost would stay counted busy (job-quotas.ts).
    await deps.tenants?.quotas.reconcileBusy().catch((err) => deps.logger.warn({ err }, 'busy clients not reconciled'));
    for (const doc of stale) {
      // A process that died between storing the job and listing it left it out of its tenant's list index.
      await deps.listIndex
        .added(doc.client_id, doc.type, doc._id, doc.created_at)
        .catch((err) => deps.logger.warn({ err, job_id: doc._id }, 'sweep could not list job'));
      await deps.workflows
        .start(doc, null)
        .catch((err) => deps.logger.warn({ err, job_id: doc._id }, 'sweep could not start job'));
    }
    return stale.length;
  }

  const timer =
    deps.sweep === false
      ? undefined
      : setInterval(() => void sweep().catch(() => undefined), Math.max(1000, sweepAfterMs));
  timer?.unref();

  /** The job's parameters within its caps (422 past one), and the tenants' bounds it counts against. */
  async function limitsOf(
    type: JobType,
    clientId: string,
    params: Record<string, unknown>,
    brandIds: readonly number[],
  ) {
    if (!deps.tenants) return { params, subjects: [] };
    const { subjects, caps } = await deps.tenants.limits.forJob(clientId, brandIds);
    return { params: type === 'maps-scrape' ? withinCaps(params, caps) : params, subjects };
  }

  /**
   * Counts the job against its tenants' bounds, or throws their refusal (429 with the bound's code; 503
   * job_fair_share while the deployment's bound is nearly reached and the client holds its share). `fairBound`: the
   * deployment's bound where the fair share applies, else 0. `show` gets the RateLimit fields either way.
   */
  async function countAgainstTenants(
    jobId: string,
    subjects: Awaited<ReturnType<typeof limitsOf>>['subjects'],
    fairBound: number,
    show?: (fields: Record<string, string>) => void,
  ): Promise<Admission | null> {
    if (!deps.tenants || !subjects.length) return null;
    const admission = await deps.tenants.quotas.admit(jobId, subjects, fairBound);
    const fields = quotaFields(admission);
    if (fields) show?.(fields);
    if (admission.verdict === 'bound_full' || admission.verdict === 'fair_share')
      throw quotaRefusal(admission, deps.tenants.retryAfterSeconds, fairBound);
    return admission;
  }

  /**
   * Past the deployment's backlog bound, or past one of its tenants' bounds, a submit is refused before anything is
   * recorded; a keyed retry of a job the first attempt stored is not new work, so it is never refused: it converges
   * on that job.
   */
  async function admit(
    jobId: string,
    keyed: boolean,
    clientId: string,
    subjects: Awaited<ReturnType<typeof limitsOf>>['subjects'],
    show?: (fields: Record<string, string>) => void,
  ): Promise<Admission | null> {
    try {
      const { nearlyFull } = (await deps.backlog?.check()) ?? { nearlyFull: false };
      const admission = await countAgainstTenants(jobId, subjects, nearlyFull ? deps.backlog!.maxUnfinished : 0, show);
      deps.backlog?.accepted();
      return admission;
    } catch (err) {
      if (!keyed || !(err instanceof AppError) || !(await loadJob(jobId, clientId))) throw err;
      return null;
    }
  }

  /**
   * Stores an admitted job; what the admission counted is taken back if nothing was stored, and the day's and month's
   * counts (and the unfinished one, for a job that has ended) if an earlier attempt had stored it.
   */
  async function storeAdmitted(
    admission: Admission | null,
    ...args: Parameters<typeof store>
  ): ReturnType<typeof store> {
    let stored: Awaited<ReturnType<typeof store>>;
    try {
      stored = await store(...args);
    } catch (err) {
      await admission?.undo().catch(() => undefined); // a lost undo only makes the count high until reconciled
      throw err;
    }
    if (stored.repeated) await admission?.undo({ keepUnfinished: !isFinal(stored.doc.status) });
    return stored;
  }

  const announce = (doc: JobDoc) => deps.events.publish('job.queued', eventData(doc, 'job.queued', doc.created_at));

  /**
   * Stores a job as queued under `jobId` and announces it (job.queued). A job stored under that id before (a watch's
   * run derives it from the run, a keyed submit from its key) is answered instead, `repeated`, with the job this call
   * would have stored: the caller says what a repeat means.
   */
  async function store(
    type: JobType,
    clientId: string,
    params: Record<string, unknown>,
    opts: JobRecordOptions & { jobId: string },
  ): Promise<{ doc: JobDoc; repeated: false; queued: JobEvent } | { doc: JobDoc; repeated: true; attempted: JobDoc }> {
    const now = new Date();
    const model = new JobModel({
      _id: opts.jobId,
      client_id: clientId,
      type,
      status: 'queued',
      params,
      webhook_url: opts.webhookUrl ?? null,
      created_by: opts.createdBy ?? null,
      submitted_by: opts.submittedBy ?? null,
      watch_id: opts.watchId ?? null,
      brand_ids: opts.brandIds ?? [],
      events_sent: ['job.queued'],
      created_at: now,
      updated_at: now,
    });
    await model.validate();
    const doc = model.toObject() as JobDoc;
    try {
      await inserts.insert(doc as unknown as Record<string, unknown>);
    } catch (err) {
      const stored = await loadJob(opts.jobId, clientId);
      if (!stored) throw err;
      // The first attempt may have died before listing it.
      await deps.listIndex.added(clientId, type, stored._id, stored.created_at);
      return { doc: stored, repeated: true, attempted: doc };
    }
    try {
      // Listed before it is answered: a list read after the submit's answer holds the job.
      await deps.listIndex.added(clientId, type, doc._id, doc.created_at);
      const queued = await announce(doc);
      jobsSubmitted.inc({ type });
      return { doc, repeated: false, queued };
    } catch (err) {
      await JobModel.deleteOne({ _id: doc._id, client_id: clientId }); // not announced: as if never submitted
      // Else a list page that meets its id drops it then.
      await deps.listIndex.removed(clientId, type, [doc._id]).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Records a job whose workflow its caller starts (a watch's run, under `jobId`): a repeated call, a retried step,
   * answers the job the first one stored with its job.queued again (the bus answers the event it published), so a
   * retried caller never makes a second job. A new one passes its caps and its tenants' bounds first (their refusal
   * is thrown: the run records it), not the deployment's backlog bound (the schedule bounds a watch's runs).
   */
  async function record(
    type: JobType,
    clientId: string,
    params: Record<string, unknown>,
    opts: JobRecordOptions & { jobId: string },
  ): Promise<{ doc: JobDoc; queued: JobEvent }> {
    const earlier = await loadJob(opts.jobId, clientId);
    if (earlier) return { doc: earlier, queued: await announce(earlier) };
    const limited = await limitsOf(type, clientId, params, opts.brandIds ?? []);
    const admission = await countAgainstTenants(opts.jobId, limited.subjects, 0);
    const stored = await storeAdmitted(admission, type, clientId, limited.params, opts);
    return stored.repeated ? { doc: stored.doc, queued: await announce(stored.doc) } : stored;
  }

  return {
    /**
     * Records and announces a job, then starts its workflow without making the caller wait for Temporal. Its
     * parameters are capped and its tenants' bounds applied first (job-limits.ts, job-quotas.ts); `showQuota` gets
     * the RateLimit fields of those bounds, for the answer, whether the job is admitted or refused.
     */
    async submit(
      type: JobType,
      clientId: string,
      params: Record<string, unknown>,
      opts: Pick<JobRecordOptions, 'webhookUrl' | 'createdBy' | 'submittedBy' | 'brandIds'> & {
        idempotency?: IdempotencyClaim;
        showQuota?: (fields: Record<string, string>) => void;
      },
    ) {
      const jobId = opts.idempotency ? idempotentId(opts.idempotency, 'job', type, clientId) : newId();
      const limited = await limitsOf(type, clientId, params, opts.brandIds ?? []);
      const admission = await admit(jobId, Boolean(opts.idempotency), clientId, limited.subjects, opts.showQuota);
      const stored = await storeAdmitted(admission, type, clientId, limited.params, { ...opts, jobId });
      if (stored.repeated) return convergeOn(stored.doc, stored.attempted);
      const { doc, queued } = stored;
      startSoon(doc, queued);
      return doc;
    },

    record,

    sweep,

    async close() {
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}

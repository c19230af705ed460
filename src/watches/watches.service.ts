import { assertSelectedClient } from '../clients/selected-client';
import type { JsonBody, QueryParams, Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { RunLocked } from '../lib/locks';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { tenantQuery } from '../lib/tenancy';
import type { Submitter } from '../jobs/job-control';
import { assertKnownArea } from '../jobs/jobs.service';
import { withinCaps, type JobLimitsResolver } from '../jobs/job-limits';
import { checkCadence, type Cadence } from './cadence';
import { WatchModel, WatchRunModel, type WatchDoc, type WatchRunDoc } from './watch.model';
import { toWatch, toWatchRun } from './watch.views';
import type { WatchWorkflows } from './watches.workflows';

/** What keeps a client's watches' cost bounded, and the default catch-up window (config, docs/watches.md). */
export interface WatchLimits {
  maxPerClient: number;
  minIntervalSeconds: number;
  catchupWindowSeconds: number;
  /** How soon after its last run or trigger a watch may be triggered again (0: any time). */
  triggerMinIntervalSeconds: number;
}

/** The creator a caller becomes of a watch it creates or resumes (watch.model.ts, creator). */
function creatorOf(who: Submitter): NonNullable<WatchDoc['creator']> | null {
  if (!who.actor) return null;
  const kind = who.actor.kind as NonNullable<WatchDoc['creator']>['kind'];
  return { kind, id: who.actor.id, brand_ids: kind === 'agent' ? who.brandIds : [] };
}

type CreateBody = JsonBody<'createWatch'>;
type UpdateBody = JsonBody<'updateWatch'>;

/**
 * Watches: a maps-scrape or research job's parameters run on a cadence by a Temporal Schedule per watch. The record
 * is written first and the schedule made from it (a schedule that cannot be made undoes the record); every change
 * runs under the watch's lock, the schedule changed before the record, so what a run reads is never ahead of what
 * Temporal does. Runs are the workflow's (watch-runs.ts).
 */
export function createWatchesService(deps: {
  workflows: WatchWorkflows;
  lock: RunLocked;
  limits: WatchLimits;
  outbound: OutboundPolicy;
  /** The caps on a job's parameters for a client and brands (a watch's given values are checked against them). */
  jobLimits: Pick<JobLimitsResolver, 'forJob'>;
}) {
  const { workflows, limits } = deps;

  async function find(scope: string | null, watchId: string): Promise<WatchDoc> {
    const tenant = tenantQuery(scope);
    const doc = await WatchModel.findOne({ _id: watchId, ...tenant.filter }, null, tenant.options).lean<WatchDoc>();
    if (!doc) throw AppError.notFound('Watch not found');
    return doc;
  }

  const lastRun = (doc: WatchDoc) =>
    WatchRunModel.findOne({ client_id: doc.client_id, watch_id: doc._id })
      .sort({ scheduled_at: -1, created_at: -1 })
      .lean<WatchRunDoc>();

  /**
   * One watch with what Temporal says of its schedule and its last run. A paused watch has no run times, so Temporal
   * is not asked; times Temporal did not give in time are left out (nextRuns).
   */
  async function detailed(doc: WatchDoc): Promise<Schemas['Watch']> {
    const [times, last] = await Promise.all([doc.state === 'active' ? workflows.nextRuns(doc._id) : [], lastRun(doc)]);
    return toWatch(doc, { nextRuns: times, lastRun: last });
  }

  /**
   * The job's parameters for the watch's kind, checked as a submit checks them (422), its caps included: a value
   * given over the client's or its creator's brands' cap is refused now; one left out gets the cap in force when a
   * run submits it.
   */
  async function jobParams(
    jobType: WatchDoc['job_type'],
    body: Pick<UpdateBody, 'maps_scrape' | 'research'>,
    owner: { clientId: string; brandIds: readonly number[] },
  ) {
    const [own, other] =
      jobType === 'research' ? (['research', 'maps_scrape'] as const) : (['maps_scrape', 'research'] as const);
    if (body[other] !== undefined)
      throw AppError.invalid(`This watch runs ${jobType} jobs: give its parameters as ${own}`, [
        { location: 'body', field: other, message: `not for a ${jobType} watch` },
      ]);
    const given = body[own];
    if (given && jobType === 'maps-scrape') {
      assertKnownArea(given as Schemas['WatchMapsScrape'], 'maps_scrape.');
      const { caps } = await deps.jobLimits.forJob(owner.clientId, owner.brandIds);
      withinCaps(given as Schemas['WatchMapsScrape'], caps, 'maps_scrape.');
    }
    return given;
  }

  /** Runs `change` on the watch under its lock, then answers it as it is now. */
  async function changing(
    tenant: string,
    watchId: string,
    change: (doc: WatchDoc) => Promise<Partial<WatchDoc> | null>,
  ) {
    return deps.lock(`watch:${watchId}`, async () => {
      const doc = await find(tenant, watchId);
      const set = await change(doc);
      if (!set) return detailed(doc);
      const updated = await WatchModel.findOneAndUpdate(
        { _id: watchId, client_id: tenant },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<WatchDoc>();
      return detailed(updated ?? { ...doc, ...set });
    });
  }

  return {
    /** Creates a watch for `who` (its webhook_url checked by the route, as a job submit's is). */
    async create(who: Submitter, body: CreateBody): Promise<Schemas['Watch']> {
      const jobType = 'research' in body ? 'research' : 'maps-scrape';
      const params = (await jobParams(jobType, body, who))!;
      const cadence = checkCadence(body.cadence as Cadence, limits.minIntervalSeconds);
      await assertSelectedClient(who.clientId, who.isSuperAdmin);
      return deps.lock(`watches:${who.clientId}`, async () => {
        const count = await WatchModel.countDocuments({ client_id: who.clientId });
        if (count >= limits.maxPerClient)
          throw AppError.conflict(
            `This client already has ${count} watches (at most ${limits.maxPerClient}); delete one to create another`,
          );
        const now = new Date();
        const doc = (
          await WatchModel.create({
            _id: newId(),
            client_id: who.clientId,
            name: body.name,
            job_type: jobType,
            params,
            cadence,
            catchup_window_seconds: body.catchup_window_seconds ?? limits.catchupWindowSeconds,
            webhook_url: body.webhook_url ?? null,
            state: 'active',
            created_by: who.userId,
            creator: creatorOf(who),
            created_at: now,
            updated_at: now,
          })
        ).toObject() as WatchDoc;
        try {
          await workflows.create(doc);
        } catch (err) {
          await WatchModel.deleteOne({ _id: doc._id, client_id: doc.client_id }); // no schedule: no watch
          throw err;
        }
        return detailed(doc);
      });
    },

    async list(scope: string | null, state: QueryParams<'listWatches'>['state'], page: Page) {
      const tenant = tenantQuery(scope);
      const filter = { ...tenant.filter, ...(state ? { state } : {}) };
      const { docs, total } = await findPage<WatchDoc>(
        WatchModel,
        { filter, sort: { created_at: -1, _id: -1 }, options: tenant.options },
        page,
      );
      return pageEnvelope(
        'watches',
        docs.map((d) => toWatch(d)),
        total,
        page,
      );
    },

    get: async (scope: string | null, watchId: string) => detailed(await find(scope, watchId)),

    /** Changes what is given; the schedule first, so a refusal (Temporal's too) leaves the watch as it was. */
    update: (tenant: string, watchId: string, patch: UpdateBody) =>
      changing(tenant, watchId, async (doc) => {
        const set: Partial<WatchDoc> = {};
        if (patch.name !== undefined) set.name = patch.name;
        const params = await jobParams(doc.job_type, patch, {
          clientId: tenant,
          brandIds: doc.creator?.brand_ids ?? [],
        });
        if (params) set.params = params;
        if (patch.cadence) set.cadence = checkCadence(patch.cadence as Cadence, limits.minIntervalSeconds);
        if (patch.catchup_window_seconds !== undefined) set.catchup_window_seconds = patch.catchup_window_seconds;
        if (patch.webhook_url !== undefined) {
          assertSubmittedUrl(patch.webhook_url, 'webhook_url', deps.outbound);
          set.webhook_url = patch.webhook_url;
        }
        if (!Object.keys(set).length) return null;
        await workflows.sync({ ...doc, ...set });
        return set;
      }),

    /** Pauses the schedule; a watch already paused is answered as it is. */
    pause: (tenant: string, watchId: string) =>
      changing(tenant, watchId, async (doc) => {
        if (doc.state === 'paused') return null;
        await workflows.sync({ ...doc, state: 'paused' });
        return { state: 'paused' };
      }),

    /**
     * Resumes the schedule; the caller becomes the watch's creator (its runs are theirs from now on), which is how a
     * watch the service paused because its creator is gone runs again. A watch already active stays as it is.
     */
    resume: (who: Submitter, watchId: string) =>
      changing(who.clientId, watchId, async (doc) => {
        if (doc.state === 'active') return null;
        await workflows.sync({ ...doc, state: 'active' });
        return { state: 'active', paused_reason: null, creator: creatorOf(who), created_by: who.userId };
      }),

    /**
     * A run now (paused or not); while one is going, right after it (never beside it). Not within the trigger
     * interval of the watch's last run or trigger (429 watch_trigger_too_soon, Retry-After), so running a watch now
     * never runs it more often than a schedule may; not for a watch whose creator is gone (409 watch_creator_gone).
     */
    async trigger(tenant: string, watchId: string): Promise<Schemas['WatchTriggered']> {
      return deps.lock(`watch:${watchId}`, async () => {
        const doc = await find(tenant, watchId);
        if (doc.paused_reason)
          throw new AppError(
            409,
            `This watch was paused because its creator can no longer act (${doc.paused_reason}); resume it to ` +
              'become its creator, then trigger it',
            { code: 'watch_creator_gone' },
          );
        const at = new Date();
        const interval = limits.triggerMinIntervalSeconds * 1000;
        const last = Math.max(doc.last_triggered_at?.getTime() ?? 0, (await lastRun(doc))?.created_at.getTime() ?? 0);
        if (interval > 0 && at.getTime() < last + interval) {
          const wait = Math.ceil((last + interval - at.getTime()) / 1000);
          throw AppError.tooManyRequests(
            `This watch ran or was triggered less than ${limits.triggerMinIntervalSeconds} s ago ` +
              `(WATCH_TRIGGER_MIN_INTERVAL_SECONDS); it may be triggered again in ${wait} s`,
            wait,
            'watch_trigger_too_soon',
          );
        }
        await workflows.trigger(doc);
        await WatchModel.updateOne({ _id: doc._id, client_id: doc.client_id }, { $set: { last_triggered_at: at } });
        return { watch_id: watchId, triggered_at: at.toISOString() };
      });
    },

    /** Deletes the schedule first (no run starts after), then the watch and its runs' records; jobs stay. */
    async remove(tenant: string, watchId: string): Promise<Schemas['WatchDeleted']> {
      return deps.lock(`watch:${watchId}`, async () => {
        const doc = await find(tenant, watchId);
        await workflows.remove(watchId);
        await WatchModel.deleteOne({ _id: doc._id, client_id: doc.client_id });
        await WatchRunModel.deleteMany({ client_id: doc.client_id, watch_id: doc._id });
        return { watch_id: watchId, deleted: true };
      });
    },

    async runs(scope: string | null, watchId: string, page: Page) {
      const doc = await find(scope, watchId);
      const filter = { client_id: doc.client_id, watch_id: doc._id };
      const { docs, total } = await findPage<WatchRunDoc>(
        WatchRunModel,
        { filter, sort: { scheduled_at: -1, created_at: -1 } },
        page,
      );
      return pageEnvelope('runs', docs.map(toWatchRun), total, page);
    },
  };
}

export type WatchesService = ReturnType<typeof createWatchesService>;

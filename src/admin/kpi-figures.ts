import type { PipelineStage } from 'mongoose';
import { ClientModel } from '../clients/client.model';
import { JobModel } from '../jobs/job.model';
import { PostModel } from '../content/post.model';
import { PageModel } from '../content/page.model';
import { AccessTokenModel } from '../auth/access-token.model';
import { PinModel } from '../pins/pin.model';
import { relayUsageTotals } from '../integrations/active-credential';
import { tenantQuery } from '../lib/tenancy';
import { windowRange, type KpiWindow } from './kpi-window';

/**
 * Every KPI source, one function per figure, each an aggregation or count over indexed fields (never a
 * load of the documents themselves). A figure of an area that kept no records would be null and named in
 * `untracked` (none at present), so a dashboard never shows an invented number.
 */
export interface KpiScope {
  /** One tenant, or null for the whole platform (a super_admin without X-Selected-Client-Id). */
  clientId: string | null;
  window: KpiWindow;
  /** ISO country, applied to the figures whose records carry a country (jobs, pins). */
  country: string | null;
}

/** The states of each job type (docs/decisions.md §4), every one reported, zero included. */
const JOB_STATES = {
  'maps-scrape': ['queued', 'processing', 'completed', 'failed', 'cancelled'],
  research: ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'],
} as const;
type JobKind = keyof typeof JOB_STATES;
/** A count for every state of a job type. */
export type StatusCounts<Kind extends JobKind> = Record<(typeof JOB_STATES)[Kind][number], number>;

export interface JobFigures<Kind extends JobKind> {
  submitted: number;
  by_status: StatusCounts<Kind>;
  /** Sum of the jobs' results_count: businesses for maps-scrape, companies for research. */
  results: number;
}

function createdIn(scope: KpiScope, start = windowRange(scope.window).start, end = windowRange(scope.window).end) {
  return { created_at: { $gte: start, $lt: end } };
}

/** Where each job type keeps the country it was submitted for. */
const JOB_COUNTRY_FIELD = { 'maps-scrape': 'params.country_code', research: 'params.companies.country_code' } as const;

async function jobFigures<Kind extends JobKind>(
  scope: KpiScope,
  type: Kind,
  range?: { start: Date; end: Date },
): Promise<JobFigures<Kind>> {
  const tenant = tenantQuery(scope.clientId);
  const match: Record<string, unknown> = {
    ...tenant.filter,
    type,
    ...createdIn(scope, range?.start, range?.end),
  };
  if (scope.country) match[JOB_COUNTRY_FIELD[type]] = scope.country;
  // One accumulator per $group: the devstack's FerretDB computes only the first of several (the rest answer 0).
  const grouped = (accumulator: unknown) =>
    JobModel.aggregate<{ _id: string; v: number }>([
      { $match: match },
      { $group: { _id: '$status', v: accumulator } },
    ] as PipelineStage[]).option(tenant.options as never);
  const [counts, sums] = await Promise.all([grouped({ $sum: 1 }), grouped({ $sum: '$results_count' })]);
  const by_status: Record<string, number> = Object.fromEntries(JOB_STATES[type].map((s) => [s, 0]));
  let submitted = 0;
  for (const g of counts) {
    if (g._id in by_status) by_status[g._id] += g.v;
    submitted += g.v;
  }
  const results = sums.reduce((n, g) => n + (g.v ?? 0), 0);
  return { submitted, by_status: by_status as StatusCounts<Kind>, results }; // every state of JOB_STATES[type]
}

/** Maps-scrape jobs submitted in the window, by status, and the businesses they found. */
export const mapsJobFigures = (scope: KpiScope, range?: { start: Date; end: Date }) =>
  jobFigures(scope, 'maps-scrape', range);

/** Research jobs submitted in the window, by status, and the companies they researched. */
export const researchJobFigures = (scope: KpiScope) => jobFigures(scope, 'research');

/** Clients that existed at the end of the window, and how many of them are active. */
export async function clientFigures(scope: KpiScope): Promise<{ clients: number; active_clients: number }> {
  const { end } = windowRange(scope.window);
  const base = { ...(scope.clientId ? { _id: scope.clientId } : {}), created_at: { $lt: end } };
  const [clients, active_clients] = await Promise.all([
    ClientModel.countDocuments(base),
    ClientModel.countDocuments({ ...base, is_active: true }),
  ]);
  return { clients, active_clients };
}

async function publishedIn(model: typeof PostModel | typeof PageModel, scope: KpiScope): Promise<number> {
  const { start, end } = windowRange(scope.window);
  const tenant = tenantQuery(scope.clientId);
  return (model as typeof PostModel)
    .countDocuments({ ...tenant.filter, status: 'published', published_at: { $gte: start, $lt: end } })
    .setOptions(tenant.options);
}

/** Posts whose (latest) publication falls in the window and that are still published. */
export const postsPublished = (scope: KpiScope) => publishedIn(PostModel, scope);

/** Pages whose (latest) publication falls in the window and that are still published. */
export const pagesPublished = (scope: KpiScope) => publishedIn(PageModel, scope);

/** Access tokens issued in the window: one per approved access request. */
export async function agentsApproved(scope: KpiScope): Promise<number> {
  const tenant = tenantQuery(scope.clientId);
  return AccessTokenModel.countDocuments({ ...tenant.filter, ...createdIn(scope) }).setOptions(tenant.options);
}

/** Access tokens usable right now: neither revoked nor expired. */
export async function activeAgents(scope: KpiScope, now = new Date()): Promise<number> {
  const tenant = tenantQuery(scope.clientId);
  return AccessTokenModel.countDocuments({ ...tenant.filter, revoked_at: null, expires_at: { $gt: now } }).setOptions(
    tenant.options,
  );
}

/** Pins claimed in the window (the pin's creation), in the scope's country when one is asked. */
export async function pinsCreated(scope: KpiScope): Promise<number> {
  const { start, end } = windowRange(scope.window);
  // The pin registry is global, not tenant-owned: the client filter is written out here.
  return PinModel.countDocuments({
    ...tenantQuery(scope.clientId).filter,
    ...(scope.country ? { country_code: scope.country } : {}),
    created_at: { $gte: start, $lt: end },
  });
}

/** Relay calls and their spend over the window's days (the integrations area's one reader of relay usage). */
export const relayFigures = (scope: KpiScope) => relayUsageTotals(scope.clientId, scope.window);

import { clientDirectory } from '../clients/client-directory';
import { agentTokens } from '../agents/agent-tokens';
import { publishedIn } from '../content/content-figures';
import { jobFigures, type JobKind } from '../jobs/job-figures';
import { pinsCreated as pinsCreatedIn } from '../pins/pin-figures';
import { relayUsageTotals } from '../integrations/active-credential';
import { tenantQuery } from '../lib/tenancy';
import { windowRange, type KpiWindow } from './kpi-window';

export type { JobFigures, StatusCounts } from '../jobs/job-figures';

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

/** A type's jobs submitted in the window (or `range`), each area's figures from the area that keeps them. */
const jobsOf = <Kind extends JobKind>(scope: KpiScope, type: Kind, range = windowRange(scope.window)) =>
  jobFigures({ clientId: scope.clientId, type, start: range.start, end: range.end, country: scope.country });

/** Maps-scrape jobs submitted in the window, by status, and the businesses they found. */
export const mapsJobFigures = (scope: KpiScope, range?: { start: Date; end: Date }) =>
  jobsOf(scope, 'maps-scrape', range);

/** Research jobs submitted in the window, by status, and the companies they researched. */
export const researchJobFigures = (scope: KpiScope) => jobsOf(scope, 'research');

/** Clients that existed at the end of the window, and how many of them are active. */
export const clientFigures = (scope: KpiScope) => clientDirectory.counts(scope.clientId, windowRange(scope.window).end);

/** Posts whose (latest) publication falls in the window and that are still published. */
export const postsPublished = (scope: KpiScope) =>
  publishedIn('posts', scope.clientId, windowRange(scope.window).start, windowRange(scope.window).end);

/** Pages whose (latest) publication falls in the window and that are still published. */
export const pagesPublished = (scope: KpiScope) =>
  publishedIn('pages', scope.clientId, windowRange(scope.window).start, windowRange(scope.window).end);

/** Access tokens issued in the window: one per approved access request. */
export const agentsApproved = (scope: KpiScope) => {
  const { start, end } = windowRange(scope.window);
  return agentTokens.issuedIn(tenantQuery(scope.clientId), start, end);
};

/** Access tokens usable right now: neither revoked nor expired. */
export const activeAgents = (scope: KpiScope, now = new Date()) =>
  agentTokens.usableAt(tenantQuery(scope.clientId), now);

/** Pins claimed in the window (the pin's creation), in the scope's country when one is asked. */
export const pinsCreated = (scope: KpiScope) => {
  const { start, end } = windowRange(scope.window);
  return pinsCreatedIn(scope.clientId, scope.country, start, end);
};

/** Relay calls and their spend over the window's days (the integrations area's one reader of relay usage). */
export const relayFigures = (scope: KpiScope) => relayUsageTotals(scope.clientId, scope.window);

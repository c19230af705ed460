import type { PipelineStage } from 'mongoose';
import { tenantQuery } from '../lib/tenancy';
import { JobModel } from './job.model';

/** The states of each job type (docs/decisions.md §4), every one reported, zero included. */
export const JOB_STATES = {
  'maps-scrape': ['queued', 'processing', 'completed', 'failed', 'cancelled'],
  research: ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'],
} as const;
export type JobKind = keyof typeof JOB_STATES;
/** A count for every state of a job type. */
export type StatusCounts<Kind extends JobKind> = Record<(typeof JOB_STATES)[Kind][number], number>;

export interface JobFigures<Kind extends JobKind> {
  submitted: number;
  by_status: StatusCounts<Kind>;
  /** Sum of the jobs' results_count: businesses for maps-scrape, companies for research. */
  results: number;
}

/** Where each job type keeps the country it was submitted for. */
const JOB_COUNTRY_FIELD = { 'maps-scrape': 'params.country_code', research: 'params.companies.country_code' } as const;

/**
 * Jobs of one type submitted in [start, end), of one client or all (null), in one country or all: how many, by
 * status, and their results. Two aggregations over indexed fields, never a load of the jobs themselves.
 */
export async function jobFigures<Kind extends JobKind>(q: {
  clientId: string | null;
  type: Kind;
  start: Date;
  end: Date;
  country: string | null;
}): Promise<JobFigures<Kind>> {
  const tenant = tenantQuery(q.clientId);
  const match: Record<string, unknown> = {
    ...tenant.filter,
    type: q.type,
    created_at: { $gte: q.start, $lt: q.end },
  };
  if (q.country) match[JOB_COUNTRY_FIELD[q.type]] = q.country;
  // One accumulator per $group: the devstack's FerretDB computes only the first of several (the rest answer 0).
  const grouped = (accumulator: unknown) =>
    JobModel.aggregate<{ _id: string; v: number }>([
      { $match: match },
      { $group: { _id: '$status', v: accumulator } },
    ] as PipelineStage[]).option(tenant.options as never);
  const [counts, sums] = await Promise.all([grouped({ $sum: 1 }), grouped({ $sum: '$results_count' })]);
  const by_status: Record<string, number> = Object.fromEntries(JOB_STATES[q.type].map((s) => [s, 0]));
  let submitted = 0;
  for (const g of counts) {
    if (g._id in by_status) by_status[g._id] += g.v;
    submitted += g.v;
  }
  const results = sums.reduce((n, g) => n + (g.v ?? 0), 0);
  return { submitted, by_status: by_status as StatusCounts<Kind>, results }; // every state of JOB_STATES[type]
}

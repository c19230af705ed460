import type Redis from 'ioredis';
import { createTokenCache } from '../auth/token-cache';
import { ClientModel } from './client.model';

export const JOB_LIMIT_FIELDS = ['max_unfinished', 'per_day', 'per_month', 'max_locations', 'max_results'] as const;
export type JobLimitField = (typeof JOB_LIMIT_FIELDS)[number];

/** A client's own bounds on jobs as a super_admin set them: a number (0: no bound), or null for the default. */
export type ClientJobLimits = Record<JobLimitField, number | null>;

/** The client record's job_limits, every field present (null where none was set). */
export function ownJobLimits(doc: { job_limits?: Partial<ClientJobLimits> | null }): ClientJobLimits {
  return Object.fromEntries(JOB_LIMIT_FIELDS.map((f) => [f, doc.job_limits?.[f] ?? null])) as ClientJobLimits;
}

const NEVER = new Date(8.64e15);

/**
 * Each client's own job limits, read on every job submit and watch run: cached per process, and exact across
 * processes by the credential cache's rule (a change is invalidated on every process before it is acknowledged).
 */
export function createClientJobLimits(redis: Redis) {
  const cache = createTokenCache<ClientJobLimits>(redis, {
    epochKey: 'clients:job-limits:epoch',
    ttlMs: 60_000,
    name: 'client-job-limits',
  });
  return {
    /** The client's own limits, or null when there is no such client. */
    of: (clientId: string): Promise<ClientJobLimits | null> =>
      cache.lookup(clientId, async () => {
        const doc = await ClientModel.findById(clientId, { job_limits: 1 }).lean<{ job_limits?: ClientJobLimits }>();
        return doc ? { value: ownJobLimits(doc), expiresAt: NEVER } : null;
      }),
    /** After a client's limits changed: every process reads them again. */
    invalidate: cache.invalidate,
  };
}

export type ClientJobLimitsLookup = ReturnType<typeof createClientJobLimits>;

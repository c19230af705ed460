import type { Infra } from '../infra';
import type { Providers } from '../providers';
import type { JobDeps } from '../../activities/jobs';
import { createJobControl } from './job-control';
import { createJobLocks } from './job-lock';
import { createJobListIndex } from './job-list-index';
import { createJobBacklog } from './job-backlog';
import { createJobWorkflows } from './jobs.workflows';
import { createWriteGate } from './write-gate';
import { createJobQuotas } from './job-quotas';
import { createJobLimits } from './job-limits';
import type { ClientJobLimitsLookup } from '../clients/client-job-limits';

export type JobCoreDeps = Pick<
  Infra,
  'config' | 'engines' | 'logger' | 'events' | 'lock' | 'media' | 'outbound' | 'brands' | 'clock'
> & {
  /** Each client's own job limits (the clients area keeps them). */
  clientLimits: ClientJobLimitsLookup;
  /** The provider adapters, where this process runs the job activities (a worker); absent in an API-only one. */
  providers?: Pick<Providers, 'maps' | 'research'>;
  /** False in a worker-only process: it accepts no jobs, so it sweeps none. */
  sweep?: boolean;
};

/**
 * What the jobs and research areas share, built once per process: the job records and their lock, each job's
 * run (start, cancel), accepting jobs (with the sweep that starts what a failed start left queued) and, where a
 * worker runs, what every job activity works with (one write gate for both kinds of job).
 */
export function createJobCore(deps: JobCoreDeps) {
  const { config, engines } = deps;
  const locks = createJobLocks(engines.redis);
  const listIndex = createJobListIndex(engines.redis, deps.logger);
  const quotas = createJobQuotas(engines.redis, deps.clock);
  const limits = createJobLimits({
    defaults: {
      max_unfinished: config.JOB_CLIENT_MAX_UNFINISHED,
      per_day: config.JOB_CLIENT_PER_DAY,
      per_month: config.JOB_CLIENT_PER_MONTH,
      max_locations: config.JOB_CLIENT_MAX_LOCATIONS,
      max_results: config.JOB_CLIENT_MAX_RESULTS,
    },
    clientLimits: deps.clientLimits,
    brands: deps.brands.lookup,
  });
  const workflows = createJobWorkflows(engines.temporal, config.bulkTaskQueue, {
    retry: {
      initial_ms: config.JOB_RETRY_INITIAL_MS,
      max_attempts: config.JOB_RETRY_MAX_ATTEMPTS,
      heartbeat_timeout_ms: config.JOB_HEARTBEAT_TIMEOUT_MS,
    },
    indexResults: config.JOB_INDEX_RESULTS,
  });
  const work: JobDeps | undefined = deps.providers && {
    maps: deps.providers.maps,
    research: deps.providers.research,
    events: deps.events,
    locks,
    listIndex,
    indexLock: deps.lock,
    indexDuringJob: config.JOB_INDEX_DURING_JOB,
    gate: createWriteGate(config.JOB_WRITE_CONCURRENCY),
    media: deps.media,
    outbound: deps.outbound,
    quotas,
  };
  return {
    control: createJobControl({
      workflows,
      locks,
      events: deps.events,
      listIndex,
      backlog: createJobBacklog({
        maxUnfinished: config.JOB_MAX_UNFINISHED,
        retryAfterSeconds: config.JOB_BACKLOG_RETRY_AFTER_SECONDS,
        fairShareReservePercent: config.JOB_FAIR_SHARE_RESERVE_PERCENT,
      }),
      tenants: { limits, quotas, retryAfterSeconds: config.JOB_BACKLOG_RETRY_AFTER_SECONDS },
      quotas,
      logger: deps.logger,
      sweep: deps.sweep,
    }),
    workflows,
    work,
    /** Each tenant's job limits and what it has used of them (the usage operation reads them). */
    limits,
    quotas,
  };
}

export type JobCore = ReturnType<typeof createJobCore>;

import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createWatchActivities } from '../../activities/watches';
import type { JobCore } from '../jobs/job-core';
import { createWatchRuns } from './watch-runs';
import { watchesRoutes } from './watches.routes';
import { createWatchesService } from './watches.service';
import { createWatchWorkflows } from './watches.workflows';
import { createWatchCreators } from './watch-creators';

export type WatchesDeps = Pick<Infra, 'config' | 'engines' | 'events' | 'lock' | 'outbound' | 'logger'> & {
  /** The job records and runs (src/jobs/job-core.ts): each run of a watch is an ordinary job. */
  core: JobCore;
  /** Whether a client may still run anything: a deactivated client's watches' runs do nothing. */
  clientActive(clientId: string): Promise<boolean>;
};

/**
 * Watches: a saved maps-scrape or research job run on a cadence by one Temporal Schedule per watch (created, listed,
 * read, changed, paused, resumed, run now and deleted by the API), each run an ordinary job started by the run's
 * workflow, which then counts the leads the run saw first and announces them (watch.new_leads).
 */
export function createWatchesModule(deps: WatchesDeps) {
  const { config, engines } = deps;
  const workflows = createWatchWorkflows(engines.temporal, config.TEMPORAL_TASK_QUEUE, engines.searchAttributes);
  const watches = createWatchesService({
    workflows,
    lock: deps.lock,
    outbound: deps.outbound,
    limits: {
      maxPerClient: config.WATCHES_MAX_PER_CLIENT,
      minIntervalSeconds: config.WATCH_MIN_INTERVAL_SECONDS,
      catchupWindowSeconds: config.WATCH_CATCHUP_WINDOW_SECONDS,
      triggerMinIntervalSeconds: config.WATCH_TRIGGER_MIN_INTERVAL_SECONDS,
    },
    jobLimits: deps.core.limits,
  });
  const runs = createWatchRuns({
    control: deps.core.control,
    jobRuns: deps.core.workflows,
    events: deps.events,
    clientActive: deps.clientActive,
    removeSchedule: workflows.remove,
    syncSchedule: workflows.sync,
  });
  const creators = createWatchCreators({ workflows, lock: deps.lock, logger: deps.logger });
  return {
    handlers: watchesRoutes({ watches, outbound: deps.outbound }),
    activities: createWatchActivities({ runs }),
    /** Pauses the watches of a user or agent token that can no longer act (the users and agents areas call it). */
    creatorGone: creators.gone,
  } satisfies AreaModule;
}

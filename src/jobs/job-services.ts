import type { Config } from '../lib/config';
import type { Engines } from '../lib/engines';
import type { Logger } from '../lib/logger';
import { eventBusFor } from '../events/event-bus';
import { createResearchService } from '../research/research.service';
import { createJobControl } from './job-control';
import { createJobLocks } from './job-lock';
import { createJobsService } from './jobs.service';

/** The jobs and research services of one API process. */
export function createJobServices(opts: { config: Config; engines: Engines; logger: Logger; credentialsKey: string }) {
  const { config, engines } = opts;
  const bus = eventBusFor(engines.redis, config);
  const control = createJobControl({
    temporal: engines.temporal,
    locks: createJobLocks(engines.redis),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    events: bus,
    logger: opts.logger,
    indexResults: config.JOB_INDEX_RESULTS,
    retry: {
      initial_ms: config.JOB_RETRY_INITIAL_MS,
      max_attempts: config.JOB_RETRY_MAX_ATTEMPTS,
      heartbeat_timeout_ms: config.JOB_HEARTBEAT_TIMEOUT_MS,
    },
  });
  return {
    jobs: createJobsService({ control }),
    research: createResearchService({ control }),
  };
}

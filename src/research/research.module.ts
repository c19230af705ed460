import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createResearchActivities } from '../../activities/research';
import type { JobCore } from '../jobs/job-core';
import { researchRoutes } from './research.routes';
import { createResearchService } from './research.service';
import { createResearchWorkflows } from './research.workflows';

export type ResearchDeps = Pick<Infra, 'engines' | 'outbound' | 'config' | 'temporalUiUrl'> & {
  /** The job records, runs and worker pieces the jobs and research areas share (src/jobs/job-core.ts). */
  core: JobCore;
};

/**
 * Company-research jobs: submitted for companies named or for what a maps-scrape job found, paused, resumed and
 * cancelled by the API; run by a workflow whose activities research a few companies at a time.
 */
export function createResearchModule(deps: ResearchDeps) {
  const { core } = deps;
  const research = createResearchService({
    control: core.control,
    jobRuns: core.workflows,
    workflows: createResearchWorkflows(deps.engines.temporal),
  });
  return {
    handlers: researchRoutes({ research, outbound: deps.outbound, temporal: deps }),
    activities: core.work && createResearchActivities({ jobs: core.work }),
  } satisfies AreaModule;
}

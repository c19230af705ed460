import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createRetentionActivities } from '../../activities/retention';
import { retentionPolicyOf } from './retention';

/** How long records are kept: the daily purge's activity (its schedule is created by the worker). */
export function createRetentionModule(deps: Pick<Infra, 'config'>) {
  return {
    handlers: {},
    activities: createRetentionActivities({ policy: retentionPolicyOf(deps.config) }),
  } satisfies AreaModule;
}

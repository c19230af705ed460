import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createDigestActivities } from '../../activities/digests';
import { activityRoutes } from './activity.routes';
import { createActivityService } from './activity.service';

export type ActivityDeps = Pick<Infra, 'lock' | 'recorder'>;

/**
 * The activity log: what every actor of a client did (recorded by the recorder, moved into MongoDB by the
 * worker's drain), read as shifts, anomalies and the periodic digests an hourly schedule sends.
 */
export function createActivityModule(deps: ActivityDeps) {
  return {
    handlers: activityRoutes({ activity: createActivityService({ lock: deps.lock }) }),
    // The digests' settings lock is the one the API's cadence changes take.
    activities: createDigestActivities({ digests: { lock: deps.lock } }),
    /** Records an event durably before it returns (every authenticated write, logins, outcomes). */
    recorder: deps.recorder,
  } satisfies AreaModule;
}

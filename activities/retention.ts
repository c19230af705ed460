import { purgeExpired, type RetentionPolicy } from '../src/retention/retention';

export function createRetentionActivities(deps: { policy: RetentionPolicy }) {
  return {
    /** Removes what has outlived the retention policy now; answers how many records of each kind went. */
    purgeExpired: () => purgeExpired(deps.policy, new Date()),
  };
}

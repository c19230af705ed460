import type { Channels } from '../src/notifications/channels';
import { createNotificationActivities } from './notifications';

/** What activities need from the outside world; the worker passes real engines, tests may pass their own. */
export interface ActivityDeps {
  channels: Channels;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createNotificationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createNotificationActivities } from '../../activities/notifications';
import { outboxRoutes } from './outbox.routes';
import { createOutboxService } from './outbox.service';

export type NotificationsDeps = Pick<Infra, 'channels'>;

/**
 * E-mail and SMS: the delivery workflow's activity, which hands a message to its channel's provider (every area
 * sends through the notifier in infra), and the development outbox the local channels write to.
 */
export function createNotificationsModule(deps: NotificationsDeps) {
  return {
    handlers: outboxRoutes({ outbox: createOutboxService(deps.channels) }),
    activities: createNotificationActivities(deps),
  } satisfies AreaModule;
}

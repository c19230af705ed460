import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { eventsRoutes } from './events.routes';
import { createEventsService } from './events.service';

export type EventsDeps = Pick<Infra, 'config' | 'engines' | 'logger' | 'events' | 'credentials'>;

/**
 * Job events as server-sent streams per client (replayed from Last-Event-ID, limited per client across API
 * processes) and their status. The events themselves are published on the bus in infra by the job areas.
 */
export function createEventsModule(deps: EventsDeps) {
  const { config } = deps;
  const events = createEventsService({
    redis: deps.engines.redis,
    bus: deps.events,
    heartbeatMs: config.SSE_HEARTBEAT_MS,
    windowSeconds: config.EVENT_REPLAY_WINDOW_SECONDS,
    maxStreamsPerClient: config.SSE_MAX_STREAMS_PER_CLIENT,
    logger: deps.logger,
    credentialsChanged: deps.credentials.onChange,
  });
  return {
    handlers: eventsRoutes({ events }),
    /** The streams and their status (the routes call it, so a test may stand in for one of its answers). */
    service: events,
    close: events.close,
  } satisfies AreaModule;
}

import type { Services } from '../services';
import type { OperationHandlers } from '../lib/http/operations';
import { tenantScope } from '../lib/tenancy';

export function eventsRoutes(s: Services): OperationHandlers {
  return {
    async streamEvents(req, res) {
      const lastEventId =
        req.get('last-event-id') ?? (typeof req.query.last_event_id === 'string' ? req.query.last_event_id : undefined);
      await s.events.stream(req, res, tenantScope(req), lastEventId);
    },
    async getEventStatus(req, res) {
      res.json(await s.events.status(tenantScope(req)));
    },
  };
}

import type { OperationHandlers } from '../lib/http/operations';
import type { OutboxService } from './outbox.service';

export function outboxRoutes(deps: { outbox: OutboxService }): OperationHandlers {
  return {
    async listOutbox(req, res) {
      const { channel, to, limit = 50 } = req.query;
      res.json(await deps.outbox.list({ channel, to, limit }));
    },
  };
}

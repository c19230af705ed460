import type { OperationHandlers } from '../lib/http/operations';
import type { OutboxService } from './outbox.service';

export function outboxRoutes(deps: { outbox: OutboxService }): OperationHandlers {
  return {
    async listOutbox(req, res) {
      const { channel, to } = req.query as { channel?: string; to?: string };
      res.json(await deps.outbox.list({ channel, to, limit: Number(req.query.limit ?? 50) }));
    },
  };
}

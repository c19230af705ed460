import type { Services } from '../services';
import { AppError } from '../lib/errors';
import type { OperationHandlers } from '../lib/http/operations';
import { listOutbox } from './outbox.service';

export function outboxRoutes(s: Services): OperationHandlers {
  const outboxInUse = s.channels.email.name === 'outbox' || s.channels.sms.name === 'outbox';
  return {
    async listOutbox(req, res) {
      if (!outboxInUse) throw AppError.notFound('No channel uses the outbox');
      const { channel, to } = req.query as { channel?: string; to?: string };
      res.json(await listOutbox({ channel, to, limit: Number(req.query.limit ?? 50) }));
    },
  };
}

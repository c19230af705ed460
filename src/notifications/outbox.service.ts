import type { Defaulted, QueryParams } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { iso } from '../lib/ids';
import type { Channels } from './channels';
import { OutboxMessageModel } from './outbox.model';

/** Which messages to list, at most `limit` of them. */
export type OutboxFilter = Defaulted<QueryParams<'listOutbox'>, 'limit'>;

/** The development outbox: the messages a channel wrote there instead of sending them. */
export function createOutboxService(channels: Channels) {
  const inUse = channels.email.name === 'outbox' || channels.sms.name === 'outbox';
  return {
    /** The newest messages first; 404 when no channel writes to the outbox. */
    async list(filter: OutboxFilter) {
      if (!inUse) throw AppError.notFound('No channel uses the outbox');
      const query: Record<string, string> = {};
      if (filter.channel) query.channel = filter.channel;
      if (filter.to) query.to = filter.to;
      const docs = await OutboxMessageModel.find(query).sort({ created_at: -1, _id: -1 }).limit(filter.limit).lean();
      return {
        messages: docs.map((d) => ({
          id: d._id as string,
          channel: d.channel,
          to: d.to,
          subject: d.subject ?? null,
          text: d.text,
          html: d.html ?? null,
          links: d.links ?? [],
          created_at: iso(d.created_at as Date),
        })),
      };
    },
  };
}

export type OutboxService = ReturnType<typeof createOutboxService>;

/** Removes the outbox messages older than `cutoff` (the retention purge); answers how many. */
export async function purgeOutboxBefore(cutoff: Date): Promise<number> {
  const { deletedCount } = await OutboxMessageModel.deleteMany({ created_at: { $lt: cutoff } });
  return deletedCount;
}

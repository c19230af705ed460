import { iso } from '../lib/ids';
import { OutboxMessageModel } from './outbox.model';

export async function listOutbox(filter: { channel?: string; to?: string; limit: number }) {
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
}

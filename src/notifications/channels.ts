import sendgrid from '@sendgrid/mail';
import twilio from 'twilio';
import type { Config } from '../lib/config';
import { linksIn, type OutboundMessage } from './message';
import { OutboxMessageModel } from './outbox.model';

export interface ChannelDriver {
  readonly name: 'outbox' | 'sendgrid' | 'twilio';
  send(message: OutboundMessage): Promise<void>;
}

export const outboxDriver: ChannelDriver = {
  name: 'outbox',
  async send(m) {
    await OutboxMessageModel.updateOne(
      { _id: m.id },
      { $setOnInsert: { channel: m.channel, to: m.to, subject: m.subject ?? null, text: m.text, html: m.html ?? null, links: linksIn(m.text, m.html) } },
      { upsert: true },
    );
  },
};

function sendgridDriver(config: Config): ChannelDriver {
  sendgrid.setApiKey(config.SENDGRID_API_KEY!);
  if (config.SENDGRID_BASE_URL) (sendgrid as unknown as { client: { setDefaultRequest(k: string, v: string): void } }).client.setDefaultRequest('baseUrl', config.SENDGRID_BASE_URL);
  return {
    name: 'sendgrid',
    async send(m) {
      await sendgrid.send({
        to: m.to, from: config.EMAIL_FROM, subject: m.subject ?? '', text: m.text, ...(m.html ? { html: m.html } : {}),
        customArgs: { message_id: m.id },
      });
    },
  };
}

function twilioDriver(config: Config): ChannelDriver {
  const client = twilio(config.TWILIO_ACCOUNT_SID, config.TWILIO_AUTH_TOKEN);
  return {
    name: 'twilio',
    async send(m) {
      await client.messages.create({ to: m.to, from: config.TWILIO_FROM, body: m.text });
    },
  };
}

export interface Channels {
  email: ChannelDriver;
  sms: ChannelDriver;
}

/** SendGrid and Twilio when their keys are configured; the outbox otherwise (DECISIONS.md §1, §7). */
export function createChannels(config: Config): Channels {
  return {
    email: config.SENDGRID_API_KEY ? sendgridDriver(config) : outboxDriver,
    sms: config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM ? twilioDriver(config) : outboxDriver,
  };
}

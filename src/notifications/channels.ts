import sendgrid from '@sendgrid/mail';
import { ApplicationFailure } from '@temporalio/common';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';
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
      {
        $setOnInsert: {
          channel: m.channel,
          to: m.to,
          subject: m.subject ?? null,
          text: m.text,
          html: m.html ?? null,
          links: linksIn(m.text, m.html),
        },
      },
      { upsert: true },
    );
  },
};

function sendgridDriver(config: Config): ChannelDriver {
  sendgrid.setApiKey(config.SENDGRID_API_KEY!);
  if (config.SENDGRID_BASE_URL)
    (sendgrid as unknown as { client: { setDefaultRequest(k: string, v: string): void } }).client.setDefaultRequest(
      'baseUrl',
      config.SENDGRID_BASE_URL,
    );
  return {
    name: 'sendgrid',
    async send(m) {
      await sendgrid.send({
        to: m.to,
        from: config.EMAIL_FROM,
        subject: m.subject ?? '',
        text: m.text,
        ...(m.html ? { html: m.html } : {}),
        customArgs: { message_id: m.id },
      });
    },
  };
}

/** Failure types of a provider's final answer (not retried); anything else (5xx, network) is retried. */
export const CHANNEL_FAILURES = {
  invalidDestination: 'InvalidDestination',
  credentialRejected: 'ProviderCredentialRejected',
  unreadable: 'ProviderAnswerUnreadable',
  refused: 'ProviderRefused',
} as const;

// Twilio's error codes for a number it cannot send to (invalid, not a mobile number, unreachable region).
const TWILIO_BAD_NUMBER = new Set([21211, 21214, 21408, 21610, 21612, 21614]);

/** A Twilio error as a final failure where retrying cannot help; the detail never carries the credential. */
function twilioFailure(err: unknown): unknown {
  const e = err as { status?: number; code?: number };
  if (err instanceof SyntaxError)
    return ApplicationFailure.nonRetryable('twilio answered a body that is not JSON', CHANNEL_FAILURES.unreadable);
  if (typeof e.status !== 'number' || e.status >= 500 || e.status === 429) return err;
  if (e.status === 401 || e.status === 403 || e.code === 20003)
    return ApplicationFailure.nonRetryable('twilio rejected the credential', CHANNEL_FAILURES.credentialRejected);
  if (TWILIO_BAD_NUMBER.has(e.code ?? 0))
    return ApplicationFailure.nonRetryable(
      `twilio rejected the number (${e.code})`,
      CHANNEL_FAILURES.invalidDestination,
    );
  if (e.code === undefined)
    return ApplicationFailure.nonRetryable(
      `twilio answered ${e.status} without an error body`,
      CHANNEL_FAILURES.unreadable,
    );
  return ApplicationFailure.nonRetryable(
    `twilio refused the message (${e.status} ${e.code})`,
    CHANNEL_FAILURES.refused,
  );
}

/** Sends Twilio's requests to TWILIO_BASE_URL instead of *.twilio.com (a local stand-in in tests). */
function redirectedRequestClient(baseUrl: string) {
  return new (class extends twilio.RequestClient {
    override request<T>(opts: RequestClient.RequestOptions<T>) {
      return super.request<T>({
        ...opts,
        uri: opts.uri.replace(/^https:\/\/[a-z0-9.-]+\.twilio\.com/, baseUrl.replace(/\/$/, '')),
      });
    }
  })();
}

function twilioDriver(config: Config): ChannelDriver {
  const client = twilio(
    config.TWILIO_ACCOUNT_SID,
    config.TWILIO_AUTH_TOKEN,
    config.TWILIO_BASE_URL ? { httpClient: redirectedRequestClient(config.TWILIO_BASE_URL) } : {},
  );
  return {
    name: 'twilio',
    async send(m) {
      try {
        await client.messages.create({ to: m.to, from: config.TWILIO_FROM, body: m.text });
      } catch (err) {
        throw twilioFailure(err);
      }
    },
  };
}

export interface Channels {
  email: ChannelDriver;
  sms: ChannelDriver;
}

/** SendGrid and Twilio when their keys are configured; the outbox otherwise (docs/decisions.md §1, §7). */
export function createChannels(config: Config): Channels {
  return {
    email: config.SENDGRID_API_KEY ? sendgridDriver(config) : outboxDriver,
    sms:
      config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM ? twilioDriver(config) : outboxDriver,
  };
}

/**
 * What to say at start-up about channels that would only reach the outbox in production: a deployment without a
 * SendGrid key or Twilio credentials sends no approval, reset or signup message to anyone, and must say so loudly.
 */
export function outboxOnlyWarnings(config: Config, channels: Channels): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const setting = { email: 'SENDGRID_API_KEY', sms: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM' };
  return (['email', 'sms'] as const)
    .filter((channel) => channels[channel] === outboxDriver)
    .map((channel) => `${channel} goes ONLY to the outbox (nobody receives it): set ${setting[channel]}`);
}

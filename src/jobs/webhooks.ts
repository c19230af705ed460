import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { JobEvent } from '../events/event-bus';
import { deliverOutbound, shownUrl, type OutboundPolicy } from '../lib/outbound';

export const SIGNATURE_HEADER = 'X-Lead-Signature';

function keyBytes(credentialsKey: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(credentialsKey) ? Buffer.from(credentialsKey, 'hex') : Buffer.from(credentialsKey, 'base64');
}

/**
 * The key a client verifies its webhooks with: derived from the service's credentials key and the
 * client id (HMAC-SHA256), so each client has its own and none is stored. Shown to the client in the
 * submit answer of a job that names a webhook_url.
 */
export function webhookSecret(credentialsKey: string, clientId: string): string {
  return createHmac('sha256', keyBytes(credentialsKey)).update(`webhook-signing:v1:${clientId}`).digest('hex');
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, as sent in X-Lead-Signature. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * One signed JSON POST to a receiver's URL, through the outbound policy (src/lib/outbound.ts). Returns the
 * status of a 2xx answer or of a refusal (any other 4xx, not retried); 408, 425, 429, 5xx and network
 * failures throw a retryable failure, so the activity's retry policy makes delivery at least once; a refused
 * address or a redirect fails at once. Job webhooks and pin callbacks both use it.
 */
export async function postSignedJson(opts: {
  url: string; secret: string; body: string; headers: Record<string, string>; policy: OutboundPolicy; what: string;
  signal?: AbortSignal;
}): Promise<number> {
  return deliverOutbound({
    url: opts.url, body: opts.body, signal: opts.signal, what: opts.what,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'lead-service-webhooks/1',
      [SIGNATURE_HEADER]: signBody(opts.secret, opts.body),
      ...opts.headers,
    },
  }, opts.policy);
}

/** One POST of a job event to a job's webhook_url, signed; an answer other than 2xx (and not retried) fails it. */
export async function deliverWebhook(opts: {
  url: string; secret: string; event: JobEvent; policy: OutboundPolicy; signal?: AbortSignal;
}): Promise<number> {
  const status = await postSignedJson({
    ...opts, what: 'webhook',
    body: JSON.stringify({ id: opts.event.id, event: opts.event.event, data: opts.event.data }),
    headers: { 'X-Lead-Event': opts.event.event, 'X-Lead-Event-Id': opts.event.id },
  });
  if (status >= 200 && status < 300) return status;
  const message = `webhook ${shownUrl(opts.url)} refused the event (${status})`;
  throw ApplicationFailure.nonRetryable(message, 'WebhookRefused');
}

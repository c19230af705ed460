import { ApplicationFailure } from '@temporalio/common';
import type { JobEvent } from '../events/event-bus';
import { deliverOutbound, shownUrl, type OutboundPolicy } from '../lib/outbound';
import { webhookHeaders } from '../lib/standard-webhooks';

/**
 * One signed JSON POST to a receiver's URL, through the outbound policy (src/lib/outbound.ts), signed by the
 * Standard Webhooks scheme (src/lib/standard-webhooks.ts) with every secret given, at this attempt's time.
 * Returns the status of a 2xx answer or of a refusal (any other 4xx, not retried); 408, 425, 429, 5xx and
 * network failures throw a retryable failure, so the activity's retry policy makes delivery at least once;
 * a refused address or a redirect fails at once. Job webhooks and pin callbacks both use it.
 */
export async function postSignedJson(opts: {
  url: string;
  id: string;
  secrets: string[];
  body: string;
  headers: Record<string, string>;
  policy: OutboundPolicy;
  what: string;
  signal?: AbortSignal;
}): Promise<number> {
  return deliverOutbound(
    {
      url: opts.url,
      body: opts.body,
      signal: opts.signal,
      what: opts.what,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'lead-service-webhooks/1',
        ...opts.headers,
        ...webhookHeaders(opts.secrets, opts.id, opts.body),
      },
    },
    opts.policy,
  );
}

/**
 * One POST of a job event to a job's webhook_url, signed with the client's secrets; `webhook-id` is the
 * event's id (the body's `id`, the same on every retry). An answer other than 2xx (and not retried) fails it.
 */
export async function deliverWebhook(opts: {
  url: string;
  secrets: string[];
  event: JobEvent;
  policy: OutboundPolicy;
  signal?: AbortSignal;
}): Promise<number> {
  const status = await postSignedJson({
    ...opts,
    what: 'webhook',
    id: opts.event.id,
    body: JSON.stringify({ id: opts.event.id, event: opts.event.event, data: opts.event.data }),
    headers: { 'X-Lead-Event': opts.event.event, 'X-Lead-Event-Id': opts.event.id },
  });
  if (status >= 200 && status < 300) return status;
  const message = `webhook ${shownUrl(opts.url)} refused the event (${status})`;
  throw ApplicationFailure.nonRetryable(message, 'WebhookRefused');
}

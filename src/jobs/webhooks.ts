import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { JobEvent } from '../events/event-bus';

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
 * One signed JSON POST to a receiver's URL. Returns the status of a 2xx answer or of a refusal (any
 * other 4xx, not retried); 408, 429, 5xx and network failures throw a retryable failure, so the
 * activity's retry policy makes delivery at least once. Job webhooks and pin callbacks both use it.
 */
export async function postSignedJson(opts: {
  url: string; secret: string; body: string; headers: Record<string, string>; timeoutMs?: number; signal?: AbortSignal;
}): Promise<number> {
  let res: Response;
  try {
    res = await fetch(opts.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'lead-service-webhooks/1',
        [SIGNATURE_HEADER]: signBody(opts.secret, opts.body),
        ...opts.headers,
      },
      body: opts.body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(opts.timeoutMs ?? 10_000), ...(opts.signal ? [opts.signal] : [])]),
    });
    await res.arrayBuffer().catch(() => undefined);
  } catch (err) {
    throw ApplicationFailure.retryable(`webhook ${opts.url} unreachable: ${(err as Error).message}`, 'WebhookUnreachable');
  }
  if (res.status === 408 || res.status === 429 || res.status >= 500) {
    throw ApplicationFailure.retryable(`webhook ${opts.url} answered ${res.status}`, 'WebhookRetry');
  }
  return res.status;
}

/** One POST of a job event to a job's webhook_url, signed; an answer other than 2xx (and not retried) fails it. */
export async function deliverWebhook(opts: { url: string; secret: string; event: JobEvent; timeoutMs?: number; signal?: AbortSignal }): Promise<number> {
  const status = await postSignedJson({
    ...opts,
    body: JSON.stringify({ id: opts.event.id, event: opts.event.event, data: opts.event.data }),
    headers: { 'X-Lead-Event': opts.event.event, 'X-Lead-Event-Id': opts.event.id },
  });
  if (status >= 200 && status < 300) return status;
  throw ApplicationFailure.nonRetryable(`webhook ${opts.url} refused the event (${status})`, 'WebhookRefused');
}

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
 * One POST of a job event to a job's webhook_url, signed. 2xx is done; 408, 429, 5xx and network
 * failures are retried by the activity's retry policy (so delivery is at least once); any other
 * answer means the receiver refuses it, and it is not retried.
 */
export async function deliverWebhook(opts: { url: string; secret: string; event: JobEvent; timeoutMs?: number; signal?: AbortSignal }): Promise<number> {
  const body = JSON.stringify({ id: opts.event.id, event: opts.event.event, data: opts.event.data });
  let res: Response;
  try {
    res = await fetch(opts.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'lead-service-webhooks/1',
        [SIGNATURE_HEADER]: signBody(opts.secret, body),
        'X-Lead-Event': opts.event.event,
        'X-Lead-Event-Id': opts.event.id,
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(opts.timeoutMs ?? 10_000), ...(opts.signal ? [opts.signal] : [])]),
    });
    await res.arrayBuffer().catch(() => undefined);
  } catch (err) {
    throw ApplicationFailure.retryable(`webhook ${opts.url} unreachable: ${(err as Error).message}`, 'WebhookUnreachable');
  }
  if (res.status >= 200 && res.status < 300) return res.status;
  if (res.status === 408 || res.status === 429 || res.status >= 500) {
    throw ApplicationFailure.retryable(`webhook ${opts.url} answered ${res.status}`, 'WebhookRetry');
  }
  throw ApplicationFailure.nonRetryable(`webhook ${opts.url} refused the event (${res.status})`, 'WebhookRefused');
}

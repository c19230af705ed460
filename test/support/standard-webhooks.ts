import type http from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/**
 * A receiver's check of a Standard Webhooks delivery, as a receiver would make it with the scheme's reference
 * library (`standardwebhooks`' verify: `webhook-signature` a space-separated list of `v1,<signature>`, any of
 * which may match, compared in constant time). The library judges the timestamp by the real clock (five minutes
 * either way); `now` and `toleranceSeconds` let a test ask about another moment first: a timestamp further than
 * `toleranceSeconds` from `now` is refused as a replay or a stale delivery. That the signatures are the scheme's
 * own, not only the library's, is held by the specification's test vector (test/security/webhook-signing).
 */
export function verifyDelivery(
  secret: string,
  headers: http.IncomingHttpHeaders,
  rawBody: string,
  opts: { now?: number; toleranceSeconds?: number } = {},
): 'ok' | 'missing headers' | 'stale timestamp' | 'bad signature' {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
    return 'missing headers';
  }
  const nowSeconds = Math.floor((opts.now ?? Date.now()) / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > (opts.toleranceSeconds ?? 300)) {
    return 'stale timestamp';
  }
  try {
    const fields = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
    new Webhook(secret).verify(rawBody, fields, { jsonParse: false });
    return 'ok';
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    return err.message === 'No matching signature found' ? 'bad signature' : 'stale timestamp';
  }
}

/** How many signatures a delivery carries. */
export const signatureCount = (headers: http.IncomingHttpHeaders) =>
  String(headers['webhook-signature'] ?? '').split(' ').length;

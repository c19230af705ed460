import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signatures of the Standard Webhooks scheme (https://www.standardwebhooks.com/), for every delivery to a
 * caller-chosen URL: `webhook-id` (the message id, the same on every retry, so a receiver can drop a repeat),
 * `webhook-timestamp` (seconds since the epoch at this attempt, so a receiver can refuse an old or replayed
 * delivery) and `webhook-signature`: space-separated `v1,<base64 HMAC-SHA256 of "${id}.${timestamp}.${body}">`,
 * one per secret in force (two during a rotation's overlap, newest first). A secret is `whsec_<base64 of 32
 * random bytes>`; the HMAC key is the decoded bytes.
 */
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The three headers of one delivery attempt, signed with every secret given, at `now` (the delivery time). */
export function webhookHeaders(secrets: string[], id: string, body: string, now = Date.now()): Record<string, string> {
  if (!secrets.length) throw new Error('a delivery needs at least one signing secret');
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => `v1,${signatureOf(s, id, timestamp, body)}`).join(' '),
  };
}

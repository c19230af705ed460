import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Signatures of the Standard Webhooks scheme (https://www.standardwebhooks.com/), made by its reference library
 * (`standardwebhooks`), for every delivery to a caller-chosen URL: `webhook-id` (the message id, the same on
 * every retry, so a receiver can drop a repeat), `webhook-timestamp` (seconds since the epoch at this attempt, so
 * a receiver can refuse an old or replayed delivery) and `webhook-signature`: space-separated `v1,<signature>`,
 * one per secret in force (two during a rotation's overlap, newest first). A secret is `whsec_<base64 of 32
 * random bytes>` (the library signs but does not make secrets).
 */
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function signerOf(secret: string): Webhook {
  // The library would also take the bare base64; a stored secret always has its prefix, so anything else is a bug.
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook secret');
  return new Webhook(secret);
}

/** The three headers of one delivery attempt, signed with every secret given, at `now` (the delivery time). */
export function webhookHeaders(secrets: string[], id: string, body: string, now = Date.now()): Record<string, string> {
  if (!secrets.length) throw new Error('a delivery needs at least one signing secret');
  const timestamp = Math.floor(now / 1000);
  const at = new Date(timestamp * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signerOf(s).sign(id, at, body)).join(' '),
  };
}

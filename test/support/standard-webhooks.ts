import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/**
 * A receiver's check of a Standard Webhooks delivery, written from the specification
 * (https://www.standardwebhooks.com/, "Verifying webhooks"), not with the service's own signer: the
 * signed content is `${webhook-id}.${webhook-timestamp}.${raw body}`, HMAC-SHA256 keyed with the
 * base64-decoded part of the secret after `whsec_`, base64; `webhook-signature` is a space-separated
 * list of `v1,<signature>`, any of which may match; a timestamp further than `toleranceSeconds` from the
 * receiver's clock is refused (a replay or a stale delivery).
 */
export function verifyDelivery(
  secret: string,
  headers: http.IncomingHttpHeaders,
  rawBody: string,
  opts: { now?: number; toleranceSeconds?: number } = {},
): 'ok' | 'missing headers' | 'stale timestamp' | 'bad signature' {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
    return 'missing headers';
  }
  const nowSeconds = Math.floor((opts.now ?? Date.now()) / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > (opts.toleranceSeconds ?? 300)) {
    return 'stale timestamp';
  }
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? 'ok' : 'bad signature';
}

/** How many signatures a delivery carries. */
export const signatureCount = (headers: http.IncomingHttpHeaders) =>
  String(headers['webhook-signature'] ?? '').split(' ').length;

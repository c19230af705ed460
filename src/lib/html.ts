import { createHash } from 'node:crypto';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe to place in HTML text and attribute values. */
export const escapeHtml = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);

/**
 * Headers of a page that a link with a secret token opens (password reset, approval, signup): its
 * Content-Security-Policy, no Referer to whatever it loads or links to (the token is in its URL), and never
 * kept by a cache.
 */
export function tokenPageHeaders(csp: readonly string[]): Record<string, string> {
  return { 'Content-Security-Policy': csp.join('; '), 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };
}

/** The CSP source that admits one inline script or style which never changes: its SHA-256 (no nonce needed). */
export const cspHash = (code: string) => `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`;

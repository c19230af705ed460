import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../lib/errors';

/**
 * Signup tokens: `sgt2.<kid>.<payload>.<signature>`, the payload base64url JSON `{rid, pin, exp}` (the
 * reservation, its pin id and its expiry in epoch seconds), the signature HMAC-SHA256 over everything
 * before it with the key named by `kid`. Several keys verify, the first signs, so a key is rotated by
 * putting a new one first and dropping the old one once its links have expired (at most one hold).
 * The previous format, `sgt1.<payload>.<signature>` without a key id, is recognised only to answer 410
 * (ask for a fresh link) instead of 401.
 */
export const CURRENT_VERSION = 'sgt2';
const PREVIOUS_VERSIONS = ['sgt1'];
const DERIVED_KID = 'd1';

export interface SignupClaims {
  reservation_id: string;
  pin_id: string;
  expires_at: Date;
}

export interface SigningKey {
  kid: string;
  secret: Buffer;
}

const decodeSecret = (s: string) => (/^[0-9a-f]{64,}$/i.test(s) ? Buffer.from(s, 'hex') : Buffer.from(s, 'base64'));

/** The keys from SIGNUP_TOKEN_KEYS (`kid:secret,...`), else one derived from the credentials key. */
export function signingKeys(configured: string | undefined, credentialsKey: string): SigningKey[] {
  if (configured) {
    return configured.split(',').map((pair) => {
      const [kid, secret] = pair.trim().split(':');
      return { kid, secret: decodeSecret(secret) };
    });
  }
  return [
    {
      kid: DERIVED_KID,
      secret: createHmac('sha256', decodeSecret(credentialsKey)).update('signup-token-signing:v2').digest(),
    },
  ];
}

const mac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text).digest();
const invalid = () => AppError.unauthorized('Invalid or expired signup token');

export function createSignupTokens(keys: SigningKey[], now: () => number = Date.now) {
  if (keys.length === 0) throw new Error('signup tokens need at least one signing key');
  const byKid = new Map(keys.map((k) => [k.kid, k.secret]));
  const signatureMatches = (secret: Buffer, signed: string, signature: string) => {
    const expected = mac(secret, signed);
    const given = Buffer.from(signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  return {
    issue(claims: SignupClaims): string {
      const { kid, secret } = keys[0];
      const payload = Buffer.from(
        JSON.stringify({
          rid: claims.reservation_id,
          pin: claims.pin_id,
          exp: Math.floor(claims.expires_at.getTime() / 1000),
        }),
      ).toString('base64url');
      const signed = `${CURRENT_VERSION}.${kid}.${payload}`;
      return `${signed}.${mac(secret, signed).toString('base64url')}`;
    },

    /** The claims of a valid token; 401 when malformed, badly signed or expired, 410 for the previous format. */
    verify(token: string): SignupClaims {
      const parts = token.split('.');
      if (PREVIOUS_VERSIONS.includes(parts[0]) && parts.length === 3) {
        // Signed with the key of its day: any current key that verifies it, else it is simply invalid.
        if (keys.some((k) => signatureMatches(k.secret, `${parts[0]}.${parts[1]}`, parts[2]))) {
          throw new AppError(410, 'This signup link is from an older version; ask for a fresh link');
        }
        throw invalid();
      }
      if (parts[0] !== CURRENT_VERSION || parts.length !== 4) throw invalid();
      const [version, kid, payload, signature] = parts;
      const secret = byKid.get(kid);
      if (!secret || !signatureMatches(secret, `${version}.${kid}.${payload}`, signature)) throw invalid();
      let body: { rid?: unknown; pin?: unknown; exp?: unknown };
      try {
        body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (typeof body.rid !== 'string' || typeof body.pin !== 'string' || typeof body.exp !== 'number') throw invalid();
      if (body.exp * 1000 <= now()) throw invalid();
      return { reservation_id: body.rid, pin_id: body.pin, expires_at: new Date(body.exp * 1000) };
    },
  };
}

export type SignupTokens = ReturnType<typeof createSignupTokens>;

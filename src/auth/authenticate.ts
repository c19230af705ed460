import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../lib/errors';
import { sha256 } from '../lib/crypto';
import type { Caller, CredentialCheck } from '../lib/tenancy';
import { SESSION_COOKIE, type AuthService } from './auth.service';

interface OperationSecurity {
  security?: Record<string, string[]>[];
  'x-roles'?: string[];
  'x-scopes'?: string[];
}

/** The credential presented, and whether it came as the session cookie (which a browser sends on its own). */
function presentedToken(req: Request, schemes: Set<string>): { token: string; byCookie: boolean } | undefined {
  const header = req.get('authorization');
  if (header && schemes.has('bearerAuth')) {
    const match = /^Bearer\s+(\S.*)$/i.exec(header);
    if (!match) throw AppError.unauthorized('Authorization must be "Bearer <token>"');
    return { token: match[1].trim(), byCookie: false };
  }
  if (schemes.has('streamToken') && typeof req.query.token === 'string')
    return { token: req.query.token, byCookie: false };
  const cookie = schemes.has('sessionCookie') ? sessionCookieOf(req.headers.cookie) : undefined;
  return cookie ? { token: cookie, byCookie: true } : undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A write carried by the session cookie must come from the service's own pages: a browser sends the cookie with
 * a request another site makes it send (a form, a fetch with credentials), so such a request is refused (OWASP's
 * Fetch Metadata resource isolation, with the Origin header where a browser sends no Sec-Fetch-Site). `same-site`
 * is refused too: a sibling host is another party. A request with neither header comes from no browser (curl, a
 * script holding the cookie), which no other site can make. `trustedOrigins` are the service's own public origin
 * and the Temporal UI's, which calls the codec with the operator's cookie.
 */
export function crossSiteWrite(req: Request, trustedOrigins: ReadonlySet<string>): string | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  if (origin !== undefined) {
    const from = originOf(origin);
    // The request's own origin as the browser addressed it (behind a trusted proxy, X-Forwarded-Proto and -Host).
    const own = req.host ? originOf(`${req.protocol}://${req.host}`) : null;
    if (from !== null && (from === own || trustedOrigins.has(from))) return null;
    return `a write with the session cookie from another origin (${origin.slice(0, 100)})`;
  }
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `a ${site.slice(0, 20)} write with the session cookie`;
  return null;
}

/**
 * An origin as browsers serialise one (RFC 6454: scheme and host lower-cased, the scheme's default port dropped), so
 * `https://Leads.Example:443` from a Host or X-Forwarded-Host header equals the browser's `https://leads.example`;
 * null for an opaque origin (`null`, sent by sandboxed frames, `data:` and `file:` pages) or one that is no URL.
 */
function originOf(value: string): string | null {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** The session cookie's value, read only on the requests that present no bearer credential. */
export const sessionCookieOf = (header: string | undefined) => cookieOf(header, SESSION_COOKIE);

/**
 * A cookie's value, read as the cookie module reads a Cookie header (the first one of the name, quotes removed,
 * percent-decoded). One pass over the header, pair by pair: it is anyone's input up to Node's 16 KB, and a pattern
 * with adjacent quantifiers over the same spaces (as `\s*=\s*("?)[^";]*`) backtracks cubically on a run of spaces,
 * holding the process for minutes.
 */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const pair of header ? header.split(';') : []) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const raw = pair.slice(eq + 1).trim();
    const value = raw.length > 1 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    return value ? percentDecoded(value) : undefined;
  }
  return undefined;
}

function percentDecoded(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const nonEmpty = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/** Role and scope rules come from the contract itself (x-roles, x-scopes), so the docs cannot drift from the checks. */
export function authorize(op: OperationSecurity, caller: Caller): void {
  if (caller.kind === 'agent') {
    const scopes = op['x-scopes'];
    if (!scopes) throw AppError.forbidden('Access tokens cannot call this operation');
    const missing = scopes.filter((s) => !caller.scopes?.includes(s));
    if (missing.length) throw AppError.forbidden(`Access token lacks scope ${missing.join(', ')}`);
  }
  const roles = op['x-roles'];
  if (roles && !roles.includes(caller.role))
    throw AppError.forbidden(`This operation needs the role ${roles.join(' or ')}`);
}

const CREDENTIAL_SCHEMES = ['bearerAuth', 'sessionCookie', 'streamToken'];

/**
 * The credential asked again, for an answer that outlives its request (an event stream): refused now, it says why;
 * still accepted, it must still pass the operation's role and scope rules for the same tenant.
 */
function credentialCheck(
  auth: Pick<AuthService, 'resolve' | 'whyRefused'>,
  op: OperationSecurity,
  token: string,
  caller: Caller,
): CredentialCheck {
  return {
    // Computed only when asked (by a stream), not on every request.
    get key() {
      return sha256(token);
    },
    async recheck() {
      const now = await auth.resolve(token);
      if (!now) return auth.whyRefused(token);
      try {
        authorize(op, now);
      } catch {
        return 'access_changed';
      }
      return now.clientId === caller.clientId ? null : 'access_changed';
    },
  };
}

/**
 * The authentication gate of one operation: reads which credentials the operation accepts from its OpenAPI
 * `security` (once, when the routes are built), resolves the presented one (triple, session or access token)
 * and applies its role and scope rules. Operations that declare no credential scheme pass through.
 */
export function authenticate(
  auth: Pick<AuthService, 'resolve' | 'whyRefused'>,
  op: OperationSecurity,
  trustedOrigins: ReadonlySet<string> = new Set(),
) {
  const schemes = new Set((op.security ?? []).flatMap((s) => Object.keys(s)));
  if (!CREDENTIAL_SCHEMES.some((s) => schemes.has(s))) {
    // The signup token is verified by the signup handlers (401 expired or badly signed, 410 old
    // format); the gate refuses a request without one before its parameters are validated.
    if (!schemes.has('signupToken')) return (_req: Request, _res: Response, next: NextFunction) => next();
    return (req: Request, _res: Response, next: NextFunction) => {
      if (!nonEmpty(req.query.token)) throw AppError.unauthorized('Missing signup token');
      next();
    };
  }
  return async (req: Request, _res: Response, next: NextFunction) => {
    const presented = presentedToken(req, schemes);
    if (!presented) throw AppError.unauthorized('Missing credentials');
    const { token } = presented;
    const caller = await auth.resolve(token);
    if (!caller) throw AppError.unauthorized('Invalid or expired credentials');
    const crossSite = presented.byCookie ? crossSiteWrite(req, trustedOrigins) : null;
    if (crossSite) throw AppError.forbidden(`Refused ${crossSite}: send it from the console or with a bearer token`);
    authorize(op, caller);
    req.caller = caller;
    req.credential = credentialCheck(auth, op, token, caller);
    next();
  };
}

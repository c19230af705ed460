/** Why no answer came: the connection was refused, the name did not resolve, TLS failed, or the wait timed out. */
export type UnreachableReason = 'refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'unreachable' | 'other';

/**
 * The service gave no answer at all: fetch's bare "fetch failed" (undici's TypeError, whose `cause` holds the system
 * error) or the client's own timeout, told as what happened. `code` is the system's (ECONNREFUSED, ENOTFOUND,
 * DEPTH_ZERO_SELF_SIGNED_CERT, UND_ERR_CONNECT_TIMEOUT, ...) where there is one; the original error is `cause`.
 */
export class LeadServiceUnreachable extends Error {
  override readonly name = 'LeadServiceUnreachable';

  constructor(
    readonly url: string,
    readonly reason: UnreachableReason,
    readonly code: string | undefined,
    /** The cause in words, e.g. "connection refused (is the service running?)". */
    readonly explanation: string,
    options: { cause: unknown },
  ) {
    super(`could not reach ${url}: ${explanation}`, options);
  }
}

/** The client's timeout for an answer's headers (clientTimeout): a TimeoutError, as AbortSignal.timeout's. */
export const answerTimeout = (ms: number) => new DOMException(`no answer within ${ms / 1000} s`, 'TimeoutError');

/**
 * The system error under fetch's TypeError: undici's connect errors carry the code, and a connection tried on several
 * addresses fails with an AggregateError of them.
 */
function systemError(err: unknown): { code?: string; message: string } | undefined {
  type Cause = { cause?: unknown; errors?: unknown[]; code?: unknown; message?: unknown };
  let at = (err as Cause).cause as Cause | undefined;
  for (let depth = 0; at && depth < 5; depth++) {
    if (typeof at.code === 'string') return { code: at.code, message: String(at.message ?? '') };
    const inner = at.errors?.find((e) => typeof (e as Cause | null)?.code === 'string') as Cause | undefined;
    if (inner) return { code: inner.code as string, message: String(inner.message ?? '') };
    if (!at.cause) return { message: String(at.message ?? at) };
    at = at.cause as Cause;
  }
  return undefined;
}

const TLS_CODE =
  /^(?:CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * The error a failed fetch of `url` becomes: a LeadServiceUnreachable naming the cause, or `err` itself when the call
 * got further (an answer came) or the caller aborted it.
 */
export function asUnreachable(err: unknown, url: string): unknown {
  const name = (err as Error | null)?.name;
  if (name === 'TimeoutError')
    return new LeadServiceUnreachable(url, 'timeout', undefined, `${(err as Error).message} (timeout)`, { cause: err });
  // fetch rejects with a TypeError (read by name: another realm's fetch has its own) when no answer came.
  if (name !== 'TypeError' || !(err as Error).cause) return err;
  const origin = URL.canParse(url) ? new URL(url) : undefined;
  const system = systemError(err) ?? { message: String(err) };
  const code = system.code;
  const because = (reason: UnreachableReason, explanation: string) =>
    new LeadServiceUnreachable(url, reason, code, explanation, { cause: err });
  if (code === 'ECONNREFUSED') return because('refused', 'connection refused (is the service running?)');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return because(
      'dns',
      `the host name ${origin?.hostname ?? ''} ${code === 'EAI_AGAIN' ? 'could not be looked up now (DNS lookup failed, EAI_AGAIN)' : `does not resolve (DNS: ${code}; check the URL)`}`,
    );
  if (code && TLS_CODE.test(code))
    return because('tls', `TLS failed: ${system.message} (${code}; is the certificate trusted? NODE_EXTRA_CA_CERTS)`);
  if (code && TIMEOUT_CODES.has(code)) return because('timeout', `timed out (${code})`);
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return because('reset', `the connection was closed before an answer (${code})`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return because('unreachable', `no route to the host (${code})`);
  // The Fetch standard's "bad port" list (25, 9, 6000, ...): fetch refuses them before connecting.
  if (system.message === 'bad port')
    return because('other', `fetch refuses port ${origin?.port ?? ''} (a port of another protocol; use another)`);
  return because('other', code ? `${system.message} (${code})` : system.message);
}

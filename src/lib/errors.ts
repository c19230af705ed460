/** The one error type of the service: every failure a caller sees is an AppError rendered as {detail}. */
export interface FieldError {
  location: string;
  field: string;
  message: string;
}

/**
 * The stable machine-readable `code` an answer carries beside `detail` where an agent can act on it without
 * reading prose (the contract's Error.code): wait (rate_limited, idempotency_key_in_flight), stop spending
 * (budget_exceeded), or send a new Idempotency-Key (idempotency_key_reused).
 */
export const ERROR_CODES = [
  'rate_limited',
  'budget_exceeded',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
  // Jobs per tenant (docs/security.md): which of the client's or a brand's bounds refused a submit or a watch's run.
  'job_unfinished_limit',
  'job_daily_quota',
  'job_monthly_quota',
  'brand_job_unfinished_limit',
  'brand_job_daily_quota',
  'brand_job_monthly_quota',
  'job_fair_share',
  'job_cap_exceeded',
  'watch_trigger_too_soon',
  'watch_creator_gone',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    /** Response headers the error needs (Retry-After on a 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AppError';
  }

  static badRequest(detail: string, extra?: Record<string, unknown>) {
    return new AppError(400, detail, extra);
  }
  static unauthorized(detail = 'Not authenticated') {
    return new AppError(401, detail);
  }
  static forbidden(detail = 'Not allowed') {
    return new AppError(403, detail);
  }
  static notFound(detail = 'Not found', extra?: Record<string, unknown>) {
    return new AppError(404, detail, extra);
  }
  static conflict(detail: string) {
    return new AppError(409, detail);
  }
  static invalid(detail: string, errors: FieldError[] = []) {
    return new AppError(422, detail, { errors });
  }
  /** 429 with Retry-After: the caller may ask again after `retryAfterSeconds`. */
  static tooManyRequests(detail: string, retryAfterSeconds: number, code?: ErrorCode) {
    return new AppError(429, detail, code ? { code } : {}, { 'Retry-After': String(retryAfterSeconds) });
  }
  /** 503; with `retryAfterSeconds`, a Retry-After saying when asking again makes sense. */
  static unavailable(detail: string, retryAfterSeconds?: number) {
    return new AppError(503, detail, {}, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {});
  }
  /** 503 with Retry-After for work refused by design past capacity (`shed`: the error handler logs no failure). */
  static overloaded(detail: string, retryAfterSeconds: number) {
    const err = AppError.unavailable(detail, retryAfterSeconds);
    err.shed = true;
    return err;
  }

  /** Refused past capacity on purpose (the access log and lead_http_requests_shed_total count it). */
  shed = false;
  static notImplemented() {
    return new AppError(501, 'not implemented');
  }
}

/**
 * A unique-index violation (how we make slugs and e-mails unique without races): MongoDB's E11000,
 * or FerretDB's SQLite backend, which reports a clash on update as a generic error naming the
 * SQLite constraint.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: number; message?: string };
  return e.code === 11000 || /UNIQUE constraint failed/.test(e.message ?? '');
}

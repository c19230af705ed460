/** A refused or failed API call, in the words the console shows (the contract's `{detail}` and `code`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code?: string,
    /** Seconds the API asked to wait (Retry-After) before trying again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  static from(response: Response, body: unknown): ApiError {
    const problem = (typeof body === 'object' && body !== null ? body : {}) as { detail?: unknown; code?: unknown };
    const detail = typeof problem.detail === 'string' ? problem.detail : response.statusText || 'The request failed';
    const retry = Number(response.headers.get('retry-after'));
    return new ApiError(
      response.status,
      detail,
      typeof problem.code === 'string' ? problem.code : undefined,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }

  static unreachable(cause: unknown): ApiError {
    const why = cause instanceof Error ? cause.message : String(cause);
    return new ApiError(0, `The service could not be reached (${why})`);
  }

  /** An engine or the service itself is unavailable: shown as a banner, not only beside the action. */
  get isOutage(): boolean {
    return this.status === 0 || this.status === 503;
  }
}

/** What the console says about a failed call: the API's own words, and when to retry where it said. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const retry = error.retryAfterSeconds ? ` Try again in ${error.retryAfterSeconds} s.` : '';
  switch (error.status) {
    case 403:
      return `Not allowed: ${error.detail}`;
    case 429:
      return `Too many requests: ${error.detail}.${retry || ' Try again shortly.'}`;
    case 503:
      return `Unavailable: ${error.detail}.${retry}`;
    default:
      return `${error.detail}${retry}`;
  }
}

import type { components } from './generated/openapi';

/** The media type the client's `api` types answers as: JSON (read CSV and JSON Lines with parseAs: 'text'). */
export type JsonMedia = 'application/json';

type ValidationIssue = components['schemas']['ValidationError']['errors'][number];

/**
 * An answer that is not a success: its status and the `{detail}` every error body of the service carries (with the
 * per-field `errors` of a 422, the machine-readable `code` where the service gives one, and the Retry-After of a
 * 429, 402, 409 or 503).
 */
export class LeadServiceError extends Error {
  override readonly name = 'LeadServiceError';
  readonly detail: string;
  readonly errors: ValidationIssue[];
  /** The contract's ErrorCode (rate_limited, budget_exceeded, ...), or undefined; new codes may appear. */
  readonly code: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
    headers?: Headers,
  ) {
    const detail =
      typeof (body as { detail?: unknown })?.detail === 'string' ? (body as { detail: string }).detail : '';
    super(`${status}${detail ? ` ${detail}` : ''}`);
    this.detail = detail;
    this.errors = Array.isArray((body as { errors?: unknown })?.errors)
      ? (body as { errors: ValidationIssue[] }).errors
      : [];
    const code = (body as { code?: unknown })?.code;
    this.code = typeof code === 'string' ? code : undefined;
    const retryAfter = Number(headers?.get('retry-after'));
    this.retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  }
}

/** What an openapi-fetch call resolves to. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful call; a LeadServiceError otherwise. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new LeadServiceError(response.status, error, response.headers);
  return data as T;
}

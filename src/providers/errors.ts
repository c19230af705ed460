import { ApplicationFailure } from '@temporalio/common';

export type ProviderErrorKind = 'rate_limited' | 'unavailable' | 'rejected' | 'malformed' | 'not_configured';

/**
 * A provider call that did not give a usable answer. `retryable` says whether asking again later can
 * help (429, 5xx, timeouts, network errors, a garbled body) or not (other 4xx, a refused key).
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    /** From a Retry-After header: the provider's own idea of when to ask again. */
    readonly retryAfterMs?: number,
  ) {
    super(`${provider} provider: ${message}`);
    this.name = 'ProviderError';
  }

  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'unavailable' || this.kind === 'malformed';
  }
}

/**
 * What an activity throws for a provider failure: retryable ones are retried by the activity's
 * Temporal retry policy (honouring Retry-After), the rest fail the job at once with a clear reason.
 */
export function providerFailure(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  const details = [{ provider: err.provider, kind: err.kind, status: err.status ?? null }];
  if (!err.retryable) return ApplicationFailure.nonRetryable(err.message, `Provider_${err.kind}`, ...details);
  return ApplicationFailure.create({
    message: err.message,
    type: `Provider_${err.kind}`,
    nonRetryable: false,
    details,
    nextRetryDelay: err.retryAfterMs ? Math.min(err.retryAfterMs, 60_000) : undefined,
  });
}

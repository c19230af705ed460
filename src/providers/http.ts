import { ProviderError } from './errors';

export interface ProviderResponse {
  status: number;
  contentType: string;
  text: string;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/**
 * One GET to a provider with a timeout (and the activity's cancellation signal, so a cancelled job
 * stops waiting). 429 and 5xx, timeouts and network errors become retryable ProviderErrors; other
 * statuses are returned for the adapter to interpret.
 */
export async function providerGet(
  provider: string,
  url: string,
  opts: { timeoutMs: number; signal?: AbortSignal; accept: string },
): Promise<ProviderResponse> {
  return providerRequest(provider, url, opts);
}

export interface ProviderRequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  accept: string;
  method?: 'GET' | 'POST';
  /** Extra headers (a provider's authorization); never logged. */
  headers?: Record<string, string>;
  /** A JSON body (sent with content-type application/json). */
  json?: unknown;
  /** Read at most this many bytes of the answer's body; the rest is dropped unread (a page cut short). */
  maxBodyBytes?: number;
}

/** The body as UTF-8 text, of at most `maxBytes` bytes (a character cut in two at the end is replaced). */
async function headOfBody(res: Response, maxBytes: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < maxBytes) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks).toString('utf8');
    chunks.push(value.subarray(0, maxBytes - size));
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).toString('utf8');
}

/** providerGet for any method, with the provider's own headers and an optional JSON body. */
export async function providerRequest(
  provider: string,
  url: string,
  opts: ProviderRequestOptions,
): Promise<ProviderResponse> {
  const signals = [AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])];
  const headers: Record<string, string> = { accept: opts.accept, 'user-agent': 'lead-service/1', ...opts.headers };
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: opts.method ?? 'GET',
      headers,
      signal: AbortSignal.any(signals),
      body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
    });
    text = opts.maxBodyBytes === undefined ? await res.text() : await headOfBody(res, opts.maxBodyBytes);
  } catch (err) {
    if (opts.signal?.aborted) throw err; // cancelled by the job: not a provider failure
    const e = err as Error;
    const what =
      e.name === 'TimeoutError'
        ? `no answer within ${opts.timeoutMs} ms`
        : `unreachable (${(e.cause as Error)?.message ?? e.message})`;
    throw new ProviderError(provider, 'unavailable', what);
  }
  if (res.status === 429)
    throw new ProviderError(
      provider,
      'rate_limited',
      'rate limited (429)',
      429,
      retryAfterMs(res.headers.get('retry-after')),
    );
  if (res.status >= 500)
    throw new ProviderError(
      provider,
      'unavailable',
      `server error (${res.status})`,
      res.status,
      retryAfterMs(res.headers.get('retry-after')),
    );
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
}

/** A 4xx that asking again will not fix: the job fails with this reason. */
export function rejected(provider: string, res: ProviderResponse): ProviderError {
  let reason: string;
  try {
    const body = JSON.parse(res.text) as { error?: string; error_message?: string; message?: string };
    reason = body.error_message ?? body.error ?? body.message ?? '';
  } catch {
    reason = res.text.slice(0, 200);
  }
  return new ProviderError(
    provider,
    'rejected',
    `request rejected (${res.status})${reason ? `: ${reason}` : ''}`,
    res.status,
  );
}

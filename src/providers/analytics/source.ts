import { ProviderError } from '../errors';
import { providerRequest, rejected, type ProviderRequestOptions } from '../http';

/** Where an analytics source lives and the key it wants; `timeoutMs` bounds every call. */
export interface SourceEndpoint {
  baseUrl: string;
  key: string;
  timeoutMs: number;
}

/** One JSON call to an analytics provider: 2xx parsed, 4xx rejected, a body that is not JSON malformed. */
export async function callJson<T>(
  provider: string,
  url: string,
  opts: Omit<ProviderRequestOptions, 'accept'>,
): Promise<T> {
  const res = await providerRequest(provider, url, { ...opts, accept: 'application/json' });
  if (res.status >= 400) throw rejected(provider, res);
  try {
    return JSON.parse(res.text) as T;
  } catch {
    throw new ProviderError(provider, 'malformed', 'answer is not JSON');
  }
}

/** A figure the provider must send as a number (or a numeric string, as some APIs do). */
export function num(provider: string, value: unknown, what: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw new ProviderError(provider, 'malformed', `${what} is not a number`);
  return n;
}

export const ratio = (part: number, whole: number) =>
  whole > 0 ? Math.min(1, Math.round((part / whole) * 1000) / 1000) : 0;

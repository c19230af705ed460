import type { IncomingHttpHeaders } from 'node:http';
import { request, type Dispatcher } from 'undici';
import { AppError } from '../../lib/errors';
import type { Credentials, ProviderName, RelayMethod } from '../providers';

export type ParamValue = string | number | boolean;
export type Params = Record<string, ParamValue | ParamValue[]>;

/** One call to a provider, as the relay or a key test makes it; `path` is relative to the provider's base. */
export interface ProviderCall {
  method: RelayMethod;
  path: string;
  params?: Params;
  json?: Record<string, unknown>;
  form?: Params;
}

export interface ProviderAnswer {
  status: number;
  /** The parsed JSON body, or undefined when the body was not JSON. */
  body: unknown;
  latencyMs: number;
}

/** The provider did not answer (network, timeout, 5xx): the caller says 503 without the reason. */
export class ProviderUnreachable extends Error {}

const MASKED = 'Provider temporarily unavailable';
export const providerUnavailable = () => AppError.unavailable(MASKED);

function appendAll(target: URLSearchParams, values: Params | undefined) {
  for (const [k, v] of Object.entries(values ?? {}))
    for (const item of Array.isArray(v) ? v : [v]) target.append(k, String(item));
}

/**
 * Builds the provider request and puts the key where the provider expects it: the maps platform as
 * the `key` query parameter, parcel tracking in its `tracking-api-key` header, the messaging provider
 * as basic authentication under the account's own path. Nothing of the caller's request (headers,
 * cookies, Authorization) is ever copied into it; a caller's own `key` parameter is overwritten.
 */
function providerRequest(baseUrl: string, provider: ProviderName, credentials: Credentials, call: ProviderCall) {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'lead-service-relay/1' };
  let url: URL;
  if (provider === 'maps') {
    url = new URL(`${baseUrl}/${call.path.replace(/^\//, '')}`);
    appendAll(url.searchParams, call.params);
    url.searchParams.set('key', String(credentials.api_key));
  } else if (provider === 'parcel-tracking') {
    url = new URL(`${baseUrl}${call.path}`);
    appendAll(url.searchParams, call.params);
    headers['tracking-api-key'] = String(credentials.api_key);
  } else {
    const account = encodeURIComponent(String(credentials.account_sid));
    url = new URL(`${baseUrl}/2010-04-01/Accounts/${account}${call.path}`);
    appendAll(url.searchParams, call.params);
    const basic = Buffer.from(`${credentials.account_sid}:${credentials.auth_token}`).toString('base64');
    headers.authorization = `Basic ${basic}`;
  }
  let body: string | undefined;
  if (call.json && call.method !== 'GET') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.form && call.method !== 'GET') {
    const form = new URLSearchParams();
    appendAll(form, call.form);
    if (provider === 'messaging' && credentials.from_number && !form.has('From') && call.path === '/Messages.json')
      form.set('From', String(credentials.from_number));
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = form.toString();
  }
  return { url, init: { method: call.method, headers, body } };
}

/** The body, up to `maxBytes` (a larger answer is refused, 502, not buffered). */
async function boundedText(headers: IncomingHttpHeaders, body: Dispatcher.ResponseData['body'], maxBytes: number) {
  const declared = Number(headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    body.destroy();
    throw new AppError(502, 'Provider answer too large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy();
      throw new AppError(502, 'Provider answer too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One provider call, bounded in time (the whole exchange) and in answer size, redirects not followed
 * (a provider never sends the relay to another host). No answer, or a 5xx, is ProviderUnreachable.
 * `dispatcher` is the provider's pool of kept-alive connections (RelayEndpoints), so a call does not
 * open a connection of its own.
 */
export async function callProvider(
  baseUrl: string,
  provider: ProviderName,
  credentials: Credentials,
  call: ProviderCall,
  limits: { timeoutMs: number; maxBytes: number; dispatcher: Dispatcher },
): Promise<ProviderAnswer> {
  const { url, init } = providerRequest(baseUrl, provider, credentials, call);
  const started = performance.now();
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let status: number;
  let text: string;
  try {
    // undici's request() never follows a redirect (undici 7 left that to its redirect interceptor, not used here).
    const res = await request(url, { ...init, dispatcher: limits.dispatcher, signal });
    status = res.statusCode;
    text = await boundedText(res.headers, res.body, limits.maxBytes);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new ProviderUnreachable(signal.aborted ? 'timeout' : 'network');
  }
  if (status >= 500) throw new ProviderUnreachable(`status ${status}`);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status, body, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
}

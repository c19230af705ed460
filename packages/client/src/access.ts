import type { Client } from 'openapi-fetch';
import { LeadServiceError, unwrap, type JsonMedia } from './errors';
import type { components, paths } from './generated/openapi';
import { sleep } from './sleep';

export type AccessRequestBody = paths['/api/v1/auth/pat/request']['post']['requestBody']['content']['application/json'];
export type AccessRequestReceipt = components['schemas']['AccessRequestReceipt'];
export type AccessRequest = components['schemas']['AccessRequest'];

/** The request was denied, or expired undecided. */
export class AccessRequestRefused extends Error {
  override readonly name = 'AccessRequestRefused';
  constructor(readonly request: AccessRequest) {
    super(`access request ${request.request_id} was ${request.status}`);
  }
}

export interface RequestAccessOptions {
  /** Called once the request is recorded (its id, which the approval e-mail names too). */
  onReceipt?: (receipt: AccessRequestReceipt) => void;
  /** Called after each poll with the interval the next one waits. */
  onPoll?: (answer: { status: number; slowDown: boolean; intervalSeconds: number }) => void;
  signal?: AbortSignal;
}

/**
 * An agent's access request, from the request to the admin's decision: polls the request's status at the interval
 * the service names (poll_interval_seconds) and, when it answers 429 `slow_down`, keeps to the interval that answer
 * gives from then on. Resolves with the approved request, whose `access_token` this first poll after approval
 * carries (once); rejects with AccessRequestRefused when denied or expired.
 */
export async function requestAccess(
  api: Client<paths, JsonMedia>,
  body: AccessRequestBody,
  options: RequestAccessOptions = {},
): Promise<AccessRequest> {
  const receipt = await unwrap(api.POST('/api/v1/auth/pat/request', { body }));
  options.onReceipt?.(receipt);
  let intervalSeconds = receipt.poll_interval_seconds;
  for (;;) {
    await sleep(intervalSeconds * 1000, options.signal);
    const { data, error, response } = await api.GET('/api/v1/auth/pat/request/{request_id}/status', {
      params: { path: { request_id: receipt.request_id }, query: { poll_token: receipt.poll_token } },
    });
    const slowDown = response.status === 429 && (error as { detail?: string })?.detail === 'slow_down';
    if (slowDown) intervalSeconds = Math.max(intervalSeconds, (error as { interval: number }).interval);
    else if (!data) throw new LeadServiceError(response.status, error, response.headers);
    else intervalSeconds = data.poll_interval_seconds;
    options.onPoll?.({ status: response.status, slowDown, intervalSeconds });
    if (!data || data.status === 'pending') continue;
    if (data.status === 'approved') return data;
    throw new AccessRequestRefused(data);
  }
}

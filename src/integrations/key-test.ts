/** Whether a provider accepts a key: one lightweight call with it, through the relay's own forwarding. */
import type { Schemas } from '../lib/contract-types';
import type { KeyRing } from '../lib/crypto';
import { AppError } from '../lib/errors';
import type { BrandAccess } from '../brands/brand-access';
import { unseal } from './key-store';
import type { ProviderName } from './providers';
import { callProvider, providerUnavailable, ProviderUnreachable, type ProviderCall } from './relay/forward';
import type { RelayEndpoints } from './relay/endpoints';
import { findKey } from './brand-keys';

export interface KeyTestDeps {
  ring: KeyRing;
  endpoints: RelayEndpoints;
  timeoutMs: number;
  maxBytes: number;
}

/** The lightweight call `test` makes per provider, and whether the answer means the key was accepted. */
const KEY_TESTS: Record<ProviderName, { call: ProviderCall; accepted: (status: number, body: unknown) => boolean }> = {
  maps: {
    call: { method: 'GET', path: 'geocode/json', params: { address: 'key check' } },
    accepted: (status, body) => status === 200 && (body as { status?: string })?.status !== 'REQUEST_DENIED',
  },
  'parcel-tracking': {
    call: { method: 'GET', path: '/couriers' },
    accepted: (status) => status >= 200 && status < 300,
  },
  // The account itself.
  messaging: { call: { method: 'GET', path: '.json' }, accepted: (status) => status >= 200 && status < 300 },
};

/** The provider's verdict on the key; an unreachable provider is an answer too (ok: false), not an error. */
export async function testKey(
  deps: KeyTestDeps,
  access: BrandAccess,
  id: number,
): Promise<Schemas['IntegrationTestResult']> {
  const key = await findKey(access, id);
  const provider = key.provider_name as ProviderName;
  let credentials;
  try {
    credentials = unseal(deps.ring, key);
  } catch {
    throw providerUnavailable();
  }
  const base = await deps.endpoints.baseUrl(provider);
  const tested_at = new Date().toISOString();
  const check = KEY_TESTS[provider];
  const started = performance.now();
  try {
    if (!base) throw new ProviderUnreachable('not configured');
    const answer = await callProvider(base, provider, credentials, check.call, {
      timeoutMs: deps.timeoutMs,
      maxBytes: deps.maxBytes,
      dispatcher: deps.endpoints.dispatcher(provider),
    });
    const ok = check.accepted(answer.status, answer.body);
    return {
      integration_id: id,
      ok,
      latency_ms: answer.latencyMs,
      provider_status: answer.status,
      message: ok ? 'Key accepted' : `Key refused by the provider (${answer.status})`,
      tested_at,
    };
  } catch (err) {
    if (!(err instanceof ProviderUnreachable) && !(err instanceof AppError)) throw err;
    const latency_ms = Math.round((performance.now() - started) * 10) / 10;
    return {
      integration_id: id,
      ok: false,
      latency_ms,
      provider_status: null,
      message: 'Provider unreachable',
      tested_at,
    };
  }
}

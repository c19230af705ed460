import type { TestApi } from '../support/harness';

export const MAPS_KEY = 'AIzaSyTestMapsKey0001';
export const PARCEL_KEY = 'parcel-secret-key-0002';
export const MESSAGING = { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: 'messaging-auth-token-0003' };

export const base = (brandId: number) => `/api/v1/brands/${brandId}/integrations`;

/** Creates a key through the API (as `token`) and returns its record. */
export async function createKey(api: TestApi, token: string, brandId: number, body: Record<string, unknown>) {
  const res = await api.call('POST', base(brandId), { token, body: { key_label: 'Key', is_primary: true, ...body } });
  if (res.status !== 201) throw new Error(`create key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** What the sandbox's relay providers received, oldest first (the relays' sandbox, started on first use). */
export async function received(api: TestApi, pathPrefix: string) {
  const sandbox = await api.rt.relayEndpoints.sandbox();
  if (!sandbox) return [];
  return sandbox.received.filter((r) => r.path.startsWith(pathPrefix));
}

export async function resetSandbox(api: TestApi) {
  const sandbox = await api.rt.relayEndpoints.sandbox();
  if (sandbox) await fetch(`${sandbox.url}/_sandbox/reset`, { method: 'POST' });
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, eventually, type TestApi } from '../support/harness';
import { BrandModel } from '../../src/brands/brand.model';

let nextBrand = 9100;

/** A client with one active brand; its credential triple acts for the brand with X-Brand-Id. */
export async function brandCaller(api: TestApi, admin: string, name: string) {
  const client = await createClient(api, admin, name);
  const brandId = nextBrand++;
  await BrandModel.create({
    _id: brandId,
    client_id: client.client_id,
    brand_name: `${name} brand`,
    slug: `brand-${brandId}`,
  });
  return { client, brandId, token: client.triple as string, headers: { 'X-Brand-Id': String(brandId) } };
}

export type BrandCaller = Awaited<ReturnType<typeof brandCaller>>;

let phone = 31_600_000_000 + Math.floor(Math.random() * 90_000_000);
export const freshPhone = () => `+${phone++}`;

export function confirmPin(api: TestApi, who: BrandCaller, body: Record<string, unknown>) {
  return api.call('POST', '/api/v1/agent/confirm-pin', {
    token: who.token,
    headers: who.headers,
    body: { country_code: 'NL', channel: 'sms', ...body },
  });
}

/** The signup link the outbox holds for `to` (the newest message with one). */
export async function signupLink(api: TestApi, admin: string, to: string, channel = 'sms'): Promise<string> {
  return eventually(async () => {
    const res = await api.call('GET', `/api/v1/dev/outbox?channel=${channel}&to=${encodeURIComponent(to)}`, {
      token: admin,
    });
    return res.body.messages
      .flatMap((m: { links: string[] }) => m.links)
      .find((l: string) => l.includes('/signup?token='));
  });
}

export const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

export const ADDRESS = {
  address_road: 'Oudegracht',
  address_house_number: '12',
  address_settlement: 'Utrecht',
  address_postcode: '3511 AP',
};

export function completeSignup(api: TestApi, token: string, name: string, extra: Record<string, unknown> = {}) {
  return api.call('POST', '/api/v1/signup/complete', {
    body: { token, name, country_code: 'NL', lat: 52.0907, lng: 5.1214, structured_address: ADDRESS, ...extra },
  });
}

/** Reserves `name` for a fresh phone and returns the token from the SMS link. */
export async function reserve(
  api: TestApi,
  admin: string,
  who: BrandCaller,
  name: string,
  extra: Record<string, unknown> = {},
) {
  const identifier = freshPhone();
  const res = await confirmPin(api, who, { name, identifier, ...extra });
  if (res.status !== 202) throw new Error(`confirm-pin ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.body, identifier, token: tokenOf(await signupLink(api, admin, identifier)) } as {
    reservation_id: string;
    expires_at: string;
    callback_secret?: string;
    identifier: string;
    token: string;
  };
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver answering the given statuses in turn (the last one repeats). */
export async function callbackReceiver(statuses: number[] = [200]) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)];
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pins`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

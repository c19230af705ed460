import { setTimeout as sleep } from 'node:timers/promises';
import type http from 'node:http';
import { Seed } from './seed';

/**
 * The relays' providers on the sandbox server, in their own wire formats: the maps platform's web
 * services (key in the `key` query parameter), a parcel-tracking API (key in the `tracking-api-key`
 * header) and a messaging API (account id and auth token as basic authentication, form bodies,
 * paths under /2010-04-01/Accounts/{AccountSid}). The key `sbx-invalid` is refused; an account id with
 * `SLOW` in it gets its usage report after 3 s. Every request is
 * recorded (method, path, query, headers, body), so tests can check what a relay forwarded.
 */
export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: string;
}

type Answer = { status: number; type: string; body: string | Buffer };
const json = (status: number, body: unknown): Answer => ({
  status,
  type: 'application/json',
  body: JSON.stringify(body),
});

export const RELAY_PREFIXES = ['/maps/api/', '/parcel-tracking/', '/messaging/'];
/** What the sandbox messaging provider bills a message (the template's list price plus carrier fees). */
export const SANDBOX_MESSAGE_PRICE = 0.0083;
const MAX_RECORDED = 5000;

/** The maps web services answered here; text search and photos stay with the jobs' sandbox (server.ts). */
const MAPS_SERVICES = new Set([
  'geocode/json',
  'place/details/json',
  'timezone/json',
  'place/nearbysearch/json',
  'place/autocomplete/json',
  'place/findplacefromtext/json',
  'directions/json',
  'distancematrix/json',
]);

function mapsAnswer(path: string, q: URLSearchParams): Answer | null {
  if (!MAPS_SERVICES.has(path)) return null;
  const key = q.get('key');
  if (!key || key === 'sbx-invalid')
    return json(200, { status: 'REQUEST_DENIED', error_message: 'The provided API key is invalid.', results: [] });
  if (path === 'geocode/json') {
    const address = q.get('address') ?? q.get('latlng');
    if (!address)
      return json(200, {
        status: 'INVALID_REQUEST',
        error_message: 'Invalid request. Missing the address or latlng parameter.',
        results: [],
      });
    const s = new Seed('geocode', address);
    return json(200, {
      results: [
        {
          formatted_address: address,
          place_id: `ChIJ${s.id(23)}`,
          types: ['street_address'],
          geometry: {
            location: { lat: s.int(-80_000, 80_000) / 1000, lng: s.int(-170_000, 170_000) / 1000 },
            location_type: 'ROOFTOP',
          },
        },
      ],
      status: 'OK',
    });
  }
  if (path === 'place/details/json') {
    const id = q.get('place_id');
    if (!id) return json(200, { status: 'INVALID_REQUEST', result: {} });
    const s = new Seed('details', id);
    return json(200, {
      result: {
        place_id: id,
        name: `Place ${s.hex(6)}`,
        rating: s.int(10, 50) / 10,
        formatted_phone_number: `0${s.int(100000000, 999999999)}`,
      },
      status: 'OK',
    });
  }
  if (path === 'timezone/json')
    return json(200, {
      dstOffset: 0,
      rawOffset: 3600,
      status: 'OK',
      timeZoneId: 'Europe/Amsterdam',
      timeZoneName: 'Central European Standard Time',
    });
  return json(200, { status: 'ZERO_RESULTS', results: [] });
}

function parcelAnswer(method: string, path: string, headers: http.IncomingHttpHeaders, body: string): Answer {
  const key = headers['tracking-api-key'];
  if (!key || key === 'sbx-invalid')
    return json(401, { meta: { code: 401, message: 'Invalid API key.', type: 'Unauthorized' }, data: {} });
  const tracking = (number: string) => {
    const s = new Seed('parcel', number);
    return {
      tracking_number: number,
      slug: s.pick(['postnl', 'dhl', 'ups', 'dpd']),
      tag: s.pick(['InTransit', 'OutForDelivery', 'Delivered']),
      checkpoints: [{ checkpoint_time: '2025-03-14T08:00:00Z', location: 'Utrecht', message: 'Parcel sorted' }],
    };
  };
  if (path === '/couriers' && method === 'GET')
    return json(200, {
      meta: { code: 200 },
      data: {
        total: 2,
        couriers: [
          { slug: 'postnl', name: 'PostNL' },
          { slug: 'dhl', name: 'DHL' },
        ],
      },
    });
  if (path === '/couriers/detect' && method === 'POST')
    return json(200, { meta: { code: 200 }, data: { total: 1, couriers: [{ slug: 'postnl', name: 'PostNL' }] } });
  if (path === '/trackings' && method === 'POST') {
    let number: string;
    try {
      number = String(JSON.parse(body || '{}')?.tracking?.tracking_number ?? '');
    } catch {
      return json(400, { meta: { code: 4001, message: 'Invalid JSON data.', type: 'BadRequest' }, data: {} });
    }
    if (!number)
      return json(400, { meta: { code: 4003, message: 'tracking_number is required.', type: 'BadRequest' }, data: {} });
    return json(201, { meta: { code: 201 }, data: { tracking: tracking(number) } });
  }
  if (path === '/trackings' && method === 'GET')
    return json(200, { meta: { code: 200 }, data: { trackings: [tracking('3SABCD1234567')] } });
  const one = /^\/trackings\/([\w-]+)$/.exec(path);
  if (one) {
    if (one[1].startsWith('NOTFOUND'))
      return json(404, { meta: { code: 4004, message: 'Tracking does not exist.', type: 'NotFound' }, data: {} });
    // An answer larger than any relay accepts (the relay bounds what it reads).
    if (one[1] === 'HUGE')
      return json(200, { data: { tracking: tracking('HUGE'), padding: 'x'.repeat(3 * 1024 * 1024) } });
    return json(200, { meta: { code: 200 }, data: { tracking: tracking(one[1]) } });
  }
  return json(404, { meta: { code: 404, message: 'The URI requested is invalid.', type: 'NotFound' }, data: {} });
}

interface SentMessage {
  account: string;
  day: string;
}

async function messagingAnswer(
  method: string,
  path: string,
  q: URLSearchParams,
  headers: http.IncomingHttpHeaders,
  body: string,
  sent: SentMessage[],
): Promise<Answer> {
  const m = /^\/2010-04-01\/Accounts\/(AC[A-Za-z0-9]{1,64})(\.json|\/.*)$/.exec(path);
  if (!m) return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
  const [, account, rest] = m;
  const auth = /^Basic (.+)$/.exec(headers.authorization ?? '');
  const [user, token] = auth ? Buffer.from(auth[1], 'base64').toString('utf8').split(':') : [];
  if (user !== account || !token || token === 'sbx-invalid')
    return json(401, {
      code: 20003,
      message: 'Authenticate',
      more_info: 'https://www.twilio.com/docs/errors/20003',
      status: 401,
    });
  if (rest === '.json')
    return json(200, { sid: account, friendly_name: 'Sandbox account', status: 'active', type: 'Full' });
  if (rest === '/Messages.json' && method === 'POST') {
    const form = new URLSearchParams(body);
    if (!form.get('To'))
      return json(400, {
        code: 21604,
        message: "A 'To' phone number is required.",
        more_info: 'https://www.twilio.com/docs/errors/21604',
        status: 400,
      });
    const now = new Date();
    sent.push({ account, day: now.toISOString().slice(0, 10) });
    const sid = `SM${new Seed('sms', account, sent.length, now.getTime()).hex(32)}`;
    return json(201, {
      sid,
      account_sid: account,
      to: form.get('To'),
      from: form.get('From'),
      body: form.get('Body') ?? '',
      status: 'queued',
      num_segments: '1',
      price: null,
      price_unit: 'USD',
      date_created: now.toUTCString(),
      uri: `/2010-04-01/Accounts/${account}/Messages/${sid}.json`,
    });
  }
  if (rest === '/Messages.json' && method === 'GET') return json(200, { messages: [], page: 0, page_size: 50 });
  if (/^\/Messages\/[A-Za-z0-9]+\.json$/.test(rest))
    return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
  if (rest === '/Usage/Records/Daily.json' && method === 'GET') {
    if (account.includes('SLOW')) await sleep(3000); // a report that takes a while
    const start = q.get('StartDate') ?? '1970-01-01';
    const end = q.get('EndDate') ?? '9999-12-31';
    const perDay = new Map<string, number>();
    for (const s of sent)
      if (s.account === account && s.day >= start && s.day <= end) perDay.set(s.day, (perDay.get(s.day) ?? 0) + 1);
    const usage_records = [...perDay.entries()].sort().map(([day, count]) => ({
      category: 'sms',
      start_date: day,
      end_date: day,
      count: String(count),
      count_unit: 'messages',
      price: (Math.round(count * SANDBOX_MESSAGE_PRICE * 1e6) / 1e6).toFixed(6),
      price_unit: 'usd',
    }));
    return json(200, { usage_records, page: 0, page_size: 1000 });
  }
  return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
}

/** The relay providers' part of the sandbox: records each request, then answers it (null: not one of theirs). */
export function createRelayProviders() {
  const received: ReceivedRequest[] = [];
  const sent: SentMessage[] = [];
  return {
    received,
    reset() {
      received.length = 0;
      sent.length = 0;
    },
    matches: (path: string) => RELAY_PREFIXES.some((p) => path.startsWith(p)),
    async answer(req: http.IncomingMessage, url: URL): Promise<Answer | null> {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? 'GET';
      received.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        at: new Date().toISOString(),
      });
      if (received.length > MAX_RECORDED) received.splice(0, received.length - MAX_RECORDED);
      if (url.pathname.startsWith('/maps/api/'))
        return mapsAnswer(url.pathname.slice('/maps/api/'.length), url.searchParams);
      if (url.pathname.startsWith('/parcel-tracking/v4/'))
        return parcelAnswer(method, url.pathname.slice('/parcel-tracking/v4'.length), req.headers, body);
      if (url.pathname.startsWith('/messaging/'))
        return messagingAnswer(
          method,
          url.pathname.slice('/messaging'.length),
          url.searchParams,
          req.headers,
          body,
          sent,
        );
      return json(404, { error: 'no such sandbox route' });
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultPlan, type QueuedFault, type Target } from './faults';
import { Openings, PAGE_SIZE, decodeToken, encodeToken, placesFor, type PageToken } from './maps-data';
import { renderPage } from './research-site';
import { Seed } from './seed';
import { analyticsAnswer } from './analytics';
import { createRelayProviders, type ReceivedRequest } from './relay-providers';
import sharp from 'sharp';

/**
 * The sandbox provider server (docs/decisions.md §1): an in-process HTTP server on 127.0.0.1 that answers
 * in the providers' own wire formats with deterministic data, used when no provider URL is configured.
 *
 *   GET  /maps/api/place/textsearch/json   classic Places Text Search (query, location, radius, region, pagetoken)
 *   GET  /maps/api/place/photo             a place photo (photo_reference)
 *   GET  /research/fetch?url=              a company web page as HTML (home, /team, /contact); key in X-Api-Key
 *   /maps/api/..., /parcel-tracking/v4/..., /messaging/2010-04-01/...
 *                                          the relays' providers (see relay-providers.ts)
 *   /product-analytics, /web-analytics, /mobile-subscriptions, /social, /campaigns: the analytics
 *                                          providers of the admin reports (see analytics.ts)
 *   POST /_sandbox/faults                  queue faults {target, status?, delay_ms?, malformed?, times}
 *   POST /_sandbox/openings                open businesses {query, count?}: a repeated search finds them too
 *   GET  /_sandbox/stats, GET /_sandbox/received (what the relay providers received), POST /_sandbox/reset
 */
export interface Sandbox {
  url: string;
  faults: FaultPlan;
  /** Businesses opened since the server started (maps-data.ts, Openings). */
  openings: Openings;
  /** Calls answered per analytics source since the server started. */
  analytics: Record<string, number>;
  /** Requests the relay providers received, oldest first. */
  received: ReceivedRequest[];
  stop(): Promise<void>;
}

/** A small PNG whose colour is derived from the photo reference: each photo has its own bytes. */
async function photo(reference: string): Promise<Buffer> {
  const s = new Seed('photo', reference);
  return sharp({
    create: {
      width: 16,
      height: 12,
      channels: 3,
      background: { r: s.int(0, 255), g: s.int(0, 255), b: s.int(0, 255) },
    },
  })
    .png()
    .toBuffer();
}

type Answer = { status: number; type: string; body: string | Buffer };
const json = (status: number, body: unknown): Answer => ({
  status,
  type: 'application/json',
  body: JSON.stringify(body),
});

function textSearch(q: URLSearchParams, openings: Openings): Answer {
  if (q.get('key') === 'sbx-invalid')
    return json(200, { status: 'REQUEST_DENIED', error_message: 'The provided API key is invalid.', results: [] });
  let t: PageToken | null;
  const token = q.get('pagetoken');
  if (token) {
    t = decodeToken(token);
    if (!t) return json(200, { status: 'INVALID_REQUEST', results: [] });
  } else {
    const query = q.get('query');
    if (!query) return json(200, { status: 'INVALID_REQUEST', error_message: 'query is required', results: [] });
    const [lat, lng] = (q.get('location') ?? '0,0').split(',').map(Number);
    t = { query, lat: lat || 0, lng: lng || 0, region: (q.get('region') ?? 'us').toLowerCase(), offset: 0 };
  }
  const all = placesFor(t.query, t.lat, t.lng, t.region, openings.of(t.query));
  const results = all.slice(t.offset, t.offset + PAGE_SIZE);
  const next = t.offset + PAGE_SIZE < all.length ? encodeToken({ ...t, offset: t.offset + PAGE_SIZE }) : undefined;
  return json(200, {
    html_attributions: [],
    results,
    status: results.length ? 'OK' : 'ZERO_RESULTS',
    ...(next ? { next_page_token: next } : {}),
  });
}

/** A research fetch: its key (if any) in the `X-Api-Key` header, `sbx-invalid` refused as a real provider would. */
function fetchPage(q: URLSearchParams, key: string | undefined): Answer {
  if (key === 'sbx-invalid') return json(401, { error: 'invalid api key' });
  let target: URL;
  try {
    target = new URL(q.get('url') ?? '');
  } catch {
    return json(400, { error: 'url must be an absolute URL' });
  }
  const html = renderPage(target.hostname, target.pathname);
  return html === null
    ? json(404, { error: 'target page not found', target_status: 404 })
    : { status: 200, type: 'text/html; charset=utf-8', body: html };
}

function subjectOf(target: Target, q: URLSearchParams): string {
  if (target === 'research') return q.get('url') ?? '';
  const token = q.get('pagetoken');
  return (token && decodeToken(token)?.query) || (q.get('query') ?? '');
}

/** A fault a test queues through POST /_sandbox/faults (snake_case, as tests send it). */
interface FaultRequest {
  target: QueuedFault['target'];
  status: number;
  delay_ms: number;
  malformed: boolean;
  times: number;
}

/** A test's JSON body, as the test sends it (the sandbox's own control requests; an empty body is `{}`). */
async function readJson<Body extends object>(req: http.IncomingMessage): Promise<Partial<Body>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
}

export async function startSandbox(opts: { host?: string; port?: number } = {}): Promise<Sandbox> {
  const faults = new FaultPlan();
  const openings = new Openings();
  const analytics: Record<string, number> = {};
  const relay = createRelayProviders();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const send = (a: Answer) => {
      faults.record(a.status);
      res.writeHead(a.status, { 'content-type': a.type });
      res.end(a.body);
    };
    try {
      if (url.pathname.startsWith('/_sandbox/')) {
        if (req.method === 'POST' && url.pathname === '/_sandbox/faults') {
          const f = await readJson<FaultRequest>(req);
          faults.enqueue({
            target: f.target ?? 'any',
            status: f.status,
            delayMs: f.delay_ms,
            malformed: f.malformed,
            times: f.times ?? 1,
          } as QueuedFault);
          return void res.writeHead(204).end();
        }
        if (req.method === 'POST' && url.pathname === '/_sandbox/openings') {
          const o = await readJson<{ query: string; count: number }>(req);
          const open = openings.open(String(o.query ?? ''), Number(o.count ?? 1));
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ open }));
        }
        if (req.method === 'POST' && url.pathname === '/_sandbox/reset')
          return void (faults.reset(), openings.reset(), relay.reset(), res.writeHead(204).end());
        if (url.pathname === '/_sandbox/received')
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ received: relay.received }));
        if (url.pathname === '/_sandbox/stats')
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ...faults.stats, analytics }));
      }
      if (relay.matches(url.pathname)) {
        const answer = await relay.answer(req, url);
        if (answer) return send(answer);
      }
      const report = await analyticsAnswer(
        {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          authorization: req.headers.authorization ?? '',
          readBody: () => readJson<object>(req),
        },
        analytics,
      );
      if (report) return send(report);
      if (url.pathname === '/maps/api/place/photo')
        return send({
          status: 200,
          type: 'image/png',
          body: await photo(url.searchParams.get('photo_reference') ?? ''),
        });
      const target: Target | null =
        url.pathname === '/maps/api/place/textsearch/json'
          ? 'maps'
          : url.pathname === '/research/fetch'
            ? 'research'
            : null;
      if (!target || req.method !== 'GET') return send(json(404, { error: 'no such sandbox route' }));
      const fault = faults.next(target, subjectOf(target, url.searchParams));
      if (fault.delayMs) await sleep(fault.delayMs);
      if (res.destroyed) return;
      if (fault.status) return send(json(fault.status, { error: `sandbox fault ${fault.status}` }));
      if (fault.malformed) {
        return send(
          target === 'maps'
            ? { status: 200, type: 'application/json', body: '{"results": [tru' }
            : { status: 200, type: 'application/octet-stream', body: Buffer.from([0, 159, 146, 150]) },
        );
      }
      const researchKey = req.headers['x-api-key'];
      send(
        target === 'maps'
          ? textSearch(url.searchParams, openings)
          : fetchPage(url.searchParams, typeof researchKey === 'string' ? researchKey : undefined),
      );
    } catch (err) {
      send(json(500, { error: (err as Error).message }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    faults,
    openings,
    analytics,
    received: relay.received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

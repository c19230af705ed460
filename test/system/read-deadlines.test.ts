import { randomBytes } from 'node:crypto';
import http from 'node:http';
import sharp from 'sharp';
import { createClient, useTestApi } from '../support/harness';
import { rawConnection, requestHead } from '../support/raw-http';

const HEADERS_DEADLINE_MS = 1000;
const REQUEST_DEADLINE_MS = 4000;
/**
 * How late a deadline may be answered and still count as honoured. Time is this file's subject: the service checks
 * its deadlines four times a second (src/lib/http/read-deadlines.ts), and the rest is a margin for a loaded CI
 * machine, whose event loop (this process's, which the API shares) stalls for a second at times.
 */
const LATE_MS = 2000;

/**
 * The HTTP edge's read deadlines (docs/security.md, "Slow and stalled clients"), set short here: a request's head
 * must arrive within HTTP_HEADERS_TIMEOUT_MS, the whole request within HTTP_REQUEST_TIMEOUT_MS; past either the
 * caller gets 408 with a JSON {detail} and its connection is closed. The answer is not under either deadline: an
 * event stream and a slow upload still work.
 */
describe('read deadlines at the HTTP edge', () => {
  const ctx = useTestApi({
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_DEADLINE_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_DEADLINE_MS),
    SSE_HEARTBEAT_MS: '500',
  });
  // A login's body, padded with whitespace (still JSON) so that trickled it outlasts the deadline by far.
  const login = `${JSON.stringify({ email: 'nobody@deadlines.test', password: 'not-a-password' })}${' '.repeat(200)}`;

  it('answers headers trickled past their deadline with 408 {detail} and closes the connection', async () => {
    const conn = rawConnection(ctx.api.url);
    conn.send('POST /api/v1/auth/login HTTP/1.1\r\nhost: localhost\r\n');
    conn.trickle('x-slow: one header byte at a time, never finished'.repeat(10), 100);
    const answer = await conn.closed;
    expect(answer).toMatchObject({
      status: 408,
      headers: { connection: 'close', 'content-type': 'application/json; charset=utf-8' },
      body: { detail: `The request's headers did not arrive within ${HEADERS_DEADLINE_MS} ms` },
      closedByServer: true,
    });
    expect(answer.ms).toBeGreaterThanOrEqual(HEADERS_DEADLINE_MS);
    expect(answer.ms).toBeLessThan(HEADERS_DEADLINE_MS + LATE_MS);
  });

  it('answers a body trickled past the request deadline with 408 {detail} and closes the connection', async () => {
    const conn = rawConnection(ctx.api.url);
    conn.send(requestHead('POST', '/api/v1/auth/login', login));
    conn.trickle(login, 100); // its last byte would come after ~26 s
    const answer = await conn.closed;
    expect(answer).toMatchObject({
      status: 408,
      headers: { connection: 'close', 'content-type': 'application/json; charset=utf-8' },
      body: { detail: `The request did not arrive in full within ${REQUEST_DEADLINE_MS} ms` },
      closedByServer: true,
    });
    expect(answer.ms).toBeGreaterThanOrEqual(REQUEST_DEADLINE_MS);
    expect(answer.ms).toBeLessThan(REQUEST_DEADLINE_MS + LATE_MS);
    // The service goes on answering.
    expect((await ctx.api.call('POST', '/api/v1/auth/login', { rawBody: login, headers: json })).status).toBe(401);
  });

  it.each([
    ['headers over 64 KiB', `GET /healthz HTTP/1.1\r\nhost: localhost\r\nx-big: ${'a'.repeat(70_000)}\r\n\r\n`, 431],
    ['a request line Node cannot read', 'NOT HTTP AT ALL\r\n\r\n', 400],
  ])("answers %s as Node's parser does, with a JSON {detail}, and closes the connection", async (_, text, status) => {
    const conn = rawConnection(ctx.api.url);
    conn.send(text);
    expect(await conn.closed).toMatchObject({
      status,
      headers: { connection: 'close', 'content-type': 'application/json; charset=utf-8' },
      body: { detail: expect.any(String) },
      closedByServer: true,
    });
  });

  it('keeps an event stream open past the request deadline: the deadline covers the request, not the answer', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Deadline Stream');
    const opened = performance.now();
    const ac = new AbortController();
    const res = await fetch(`${ctx.api.url}/api/v1/events/stream?token=${encodeURIComponent(client.triple)}`, {
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    try {
      // A heartbeat (every 500 ms here) that comes well after the request deadline passed on this stream.
      let late = false;
      while (!late) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        late = new TextDecoder().decode(value).includes('event: heartbeat') && performance.now() - opened > 6000;
      }
      expect(late).toBe(true);
    } finally {
      ac.abort();
    }
  });

  it('takes a large body that arrives slowly but within the request deadline (a logo over a slow line)', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Deadline Upload');
    const brand = await ctx.api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'Slow Upload', slug: 'slow-upload' },
    });
    expect(brand.status).toBe(201);
    // About 1.9 MB of JSON (an 800 x 600 PNG of noise as base64): past JSON_BODY_LIMIT_BYTES, within the logo's
    // x-body-limit.
    const noise = await sharp(randomBytes(800 * 600 * 3), { raw: { width: 800, height: 600, channels: 3 } })
      .png()
      .toBuffer();
    const body = JSON.stringify({ file: noise.toString('base64') });
    expect(body.length).toBeGreaterThan(1_048_576);
    const pieces = 10;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${ctx.api.url}/api/v1/brands/${brand.body.brand_id}/logo`, {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${client.triple}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      });
      req.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode!);
      });
      req.on('error', reject);
      // Spread over ~2 s: past the headers deadline, within the request deadline.
      let sent = 0;
      const timer = setInterval(() => {
        const size = Math.ceil(body.length / pieces);
        req.write(body.slice(sent * size, (sent + 1) * size));
        if (++sent === pieces) {
          clearInterval(timer);
          req.end();
        }
      }, 200);
    });
    expect(status).toBe(200);
  });
});

const json = { 'content-type': 'application/json' };

import http from 'node:http';
import { httpRequestsInFlight } from '../../src/lib/metrics';
import { createClient, eventually, useTestApi } from '../support/harness';

/**
 * The HTTP edge's bound (docs/performance.md, "Load"): two requests in progress at most here. Slots are held
 * deterministically by requests whose bodies have not finished arriving (admitted, waiting in the body parser), and
 * the event loop is stalled by the test itself; no figure depends on how fast this machine is.
 */
describe('load shedding at the HTTP edge', () => {
  const ctx = useTestApi({ HTTP_MAX_CONCURRENT_REQUESTS: '2', HTTP_MAX_EVENT_LOOP_DELAY_MS: '1000' });
  let triple: string;
  beforeAll(async () => {
    // This process's loop can stall past the bound while its worker starts on a loaded machine (another test file
    // beside it): the setup is then refused at the edge, before any work, and does what a client does: tries again.
    const busy = (err: Error) =>
      /: 503 \{"detail":"Service busy \(/.test(err.message) ? undefined : Promise.reject(err);
    const tenant = await eventually(() => createClient(ctx.api, ctx.admin, 'Shed Tenant').catch(busy), 30_000, 1000);
    triple = tenant.triple;
  });

  const inFlight = async () => (await httpRequestsInFlight.get()).values[0]?.value ?? 0;

  /** A job submit whose body stays unfinished until `finish()`: admitted, it holds its slot meanwhile. */
  function heldSubmit() {
    const body = JSON.stringify({ query: 'x', country_code: 'nowhere' }); // invalid: answered 422, no job
    const req = http.request(`${ctx.api.url}/api/v1/dashboard/client/jobs/maps-scrape/submit`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${triple}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 5));
    return { answered, finish: () => req.end(body.slice(5)) };
  }

  /** Opens an event stream and answers once its `connected` frame arrived; the stream stays open. */
  async function openStream() {
    const ac = new AbortController();
    const res = await fetch(`${ctx.api.url}/api/v1/events/stream?token=${encodeURIComponent(triple)}`, {
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: connected')) text += new TextDecoder().decode((await reader.read()).value);
    return { close: () => ac.abort() };
  }

  it('refuses past its bound with a 503 and Retry-After, keeps probes and open streams, and recovers', async () => {
    // Open event streams hold no slot: three stay open under a bound of two, and requests still pass.
    const streams = [await openStream(), await openStream(), await openStream()];
    expect((await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple })).status).toBe(200);

    const held = [heldSubmit(), heldSubmit()];
    await eventually(async () => ((await inFlight()) === 2 ? true : undefined));
    const refused = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.detail).toMatch(/^Service busy \(2 requests are in progress\)/);
    // A refused submit was never recorded: the tenant has no job.
    const submit = await ctx.api.call('POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', {
      token: triple,
      body: { query: 'refused', country_code: 'LU', max_locations: 1, max_results: 1 },
    });
    expect(submit.status).toBe(503);
    // Probes answer whatever the load.
    expect((await ctx.api.call('GET', '/healthz')).status).toBe(200);
    expect((await ctx.api.call('GET', '/api/v1/system/health', { token: ctx.admin })).status).toBe(200);

    held.forEach((h) => h.finish());
    expect(await Promise.all(held.map((h) => h.answered))).toEqual([422, 422]);
    const list = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(0);
    expect(await inFlight()).toBe(0);
    streams.forEach((s) => s.close());
  });

  it('refuses while the event loop stalled beyond its bound, then admits again', async () => {
    const stalledUntil = Date.now() + 2500; // 2.5 s against a bound of 1 s: a wide margin either way
    while (Date.now() < stalledUntil) {
      /* the API's loop (this process's) stalls */
    }
    const refused = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.detail).toBe('Service busy (the event loop stalled for over 1000 ms); retry later');
    const admitted = await eventually(async () => {
      const res = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple });
      return res.status === 200 ? res : undefined;
    });
    expect(admitted.body.total).toBe(0);
  });
});

import http from 'node:http';
import { httpRequestsInFlight } from '../../src/lib/metrics';
import { createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { heldRelayCalls, startHeldProvider, type HeldProvider, type SetupStep } from './held-relays';

/**
 * The HTTP edge's bound (docs/performance.md, "Load"): two requests in progress at most here. Slots are held
 * deterministically by relay calls waiting for a provider the test holds, and the event loop is stalled by the test
 * itself; no figure depends on how fast this machine is.
 */
describe('load shedding at the HTTP edge', () => {
  const ctx = {} as { api: TestApi; admin: string };
  let provider: HeldProvider;
  let relay: Awaited<ReturnType<typeof heldRelayCalls>>;
  let triple: string;
  beforeAll(async () => {
    provider = await startHeldProvider();
    ctx.api = await startTestApi({
      HTTP_MAX_CONCURRENT_REQUESTS: '2',
      HTTP_MAX_EVENT_LOOP_DELAY_MS: '1000',
      RELAY_MAPS_URL: provider.url,
      RELAY_TIMEOUT_MS: '120000', // the provider is held as long as the test says, never timed out meanwhile
    });
    // This process's loop can stall past the bound while its worker starts on a loaded machine (another test file
    // beside it): the setup is then refused at the edge, before any work, and does what a client does: tries again.
    const busy = (err: Error) =>
      /: 503 \{"detail":"Service busy \(/.test(err.message) ? undefined : Promise.reject(err);
    const retried: SetupStep = (step) => eventually(() => step().catch(busy), 30_000, 1000);
    ctx.admin = await retried(() => ctx.api.login());
    triple = (await retried(() => createClient(ctx.api, ctx.admin, 'Shed Tenant'))).triple;
    relay = await heldRelayCalls(ctx.api, ctx.admin, 'shed', retried);
  }, 120_000);
  afterAll(async () => {
    await provider?.close();
    await ctx.api?.stop();
  });

  const inFlight = async () => (await httpRequestsInFlight.get()).values[0]?.value ?? 0;

  /** A job submit whose body stays unfinished until `finish()`; `arrived` once the server has its head. */
  function heldSubmit() {
    const body = JSON.stringify({ query: 'held', country_code: 'LU', max_locations: 1, max_results: 1 });
    const arrived = new Promise<void>((resolve) => {
      const listener = (incoming: http.IncomingMessage) => {
        if (!incoming.url?.endsWith('/maps-scrape/submit')) return;
        ctx.api.rt.server.off('request', listener);
        resolve();
      };
      ctx.api.rt.server.prependListener('request', listener);
    });
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
    return { arrived, answered, finish: () => req.end(body.slice(5)) };
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

    const held = [relay(), relay()];
    await eventually(async () => (provider.waiting() === 2 && (await inFlight()) === 2 ? true : undefined));
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

    provider.answer();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    const list = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(0);
    expect(await inFlight()).toBe(0);
    streams.forEach((s) => s.close());
  });

  it('holds no slot for a request whose body is arriving, and takes one again once it has (503 if none is free)', async () => {
    const submit = heldSubmit();
    await submit.arrived; // admitted: it holds a slot until its body is read
    await eventually(async () => ((await inFlight()) === 0 ? true : undefined), 5000, 50, 'the slot given back');
    // Both slots go to other requests meanwhile...
    const held = [relay(), relay()];
    await eventually(async () => (provider.waiting() === 2 ? true : undefined));
    // ...so the submit, its body complete, finds the service full: refused, and nothing was recorded.
    submit.finish();
    expect(await submit.answered).toBe(503);
    provider.answer();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    const list = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple });
    expect(list.body.total).toBe(0);
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

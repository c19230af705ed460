import Redis from 'ioredis';
import { createStreamLeases } from '../../src/events/stream-leases';
import { createClient, eventually, useTestApi } from '../support/harness';
import { openStream, type SseStream } from './sse-client';

const STREAM = '/api/v1/events/stream';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('open event streams per client (SSE_MAX_STREAMS_PER_CLIENT=2)', () => {
  const ctx = useTestApi({ SSE_MAX_STREAMS_PER_CLIENT: '2' });
  const open: SseStream[] = [];
  afterAll(() => open.forEach((s) => s.close()));

  const url = (token: string) => `${ctx.api.url}${STREAM}?token=${encodeURIComponent(token)}`;
  /** A stream that was let in: it has sent `connected`. */
  async function admitted(token: string) {
    const s = await openStream(url(token));
    open.push(s);
    expect(s.status).toBe(200);
    await s.next((f) => f.event === 'connected');
    return s;
  }
  /** Opens a stream and answers its status (a stream let in stays open until the end). */
  async function tryOpen(token: string) {
    const s = await openStream(url(token));
    open.push(s);
    return s.status;
  }
  async function expectRefused(token: string) {
    const res = await fetch(url(token), { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    const detail = 'Too many open event streams for this client (at most 2); close one or retry later';
    expect(await res.json()).toEqual({ detail });
  }
  /** Another API instance's view of the same Redis (its own connection, as a second process has). */
  function otherInstance(leaseMs: number) {
    const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: ctx.api.config.REDIS_KEY_PREFIX });
    return { redis, leases: createStreamLeases(redis, { max: 2, leaseMs }) };
  }

  it('refuses a third stream: 429, Retry-After, {detail}; other clients go on; closing frees a slot', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Stream Limit');
    const globex = await createClient(ctx.api, ctx.admin, 'Globex Stream Limit');
    const first = await admitted(acme.triple);
    await admitted(acme.triple);
    await expectRefused(acme.triple);
    await admitted(globex.triple);
    first.close();
    await eventually(async () => ((await tryOpen(acme.triple)) === 200 ? true : undefined));
    await expectRefused(acme.triple);
  });

  it('counts the streams another API instance holds, and stops counting those of an instance that died', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Stream Instances');
    const other = otherInstance(1500);
    try {
      await other.leases.take(acme.client_id); // a stream open on the other instance
      await admitted(acme.triple);
      await expectRefused(acme.triple);
    } finally {
      other.redis.disconnect(); // the other instance dies: its lease is no longer renewed and lapses
    }
    await eventually(async () => ((await tryOpen(acme.triple)) === 200 ? true : undefined));
  });

  it('renews the lease of a stream open longer than a lease, and drops it when it closes', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Stream Renewal');
    const other = otherInstance(600);
    try {
      const lease = await other.leases.take(acme.client_id);
      await sleep(1500); // time is the subject: two and a half leases, which only renewal outlives
      expect(await other.leases.count(acme.client_id)).toBe(1);
      lease.release();
      await eventually(async () => ((await other.leases.count(acme.client_id)) === 0 ? true : undefined));
    } finally {
      other.redis.disconnect();
    }
  });
});

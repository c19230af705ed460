import Redis from 'ioredis';
import { SESSION_COOKIE } from '../../src/auth/auth.service';
import { createEventBus, type EventName } from '../../src/events/event-bus';
import { createClient, useTestApi } from '../support/harness';
import { userOf } from '../brands/brand-helpers';
import { openStream, type SseStream } from './sse-client';

const STREAM = '/api/v1/events/stream';
/** As test/events/revocation.test.ts: the heartbeat is a minute, so only the logout's invalidation ends it sooner. */
const ENDS_WITHIN_MS = 10_000;

/** The console's stream: EventSource with credentials, so the session cookie and nothing in the URL. */
describe('the event stream opened with the session cookie alone', () => {
  const ctx = useTestApi({ SSE_HEARTBEAT_MS: '60000' });
  const opened: SseStream[] = [];
  afterAll(() => opened.forEach((s) => s.close()));

  /** Publishes as another API process would (test/events/stream.test.ts). */
  async function publish(event: EventName, clientId: string, jobId: string) {
    const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: ctx.api.config.REDIS_KEY_PREFIX });
    try {
      await createEventBus(redis, { retention: 100, windowSeconds: 60 }).publish(event, {
        job_id: jobId,
        job_type: 'research',
        status: event === 'job.completed' ? 'completed' : 'running',
        client_id: clientId,
        occurred_at: new Date().toISOString(),
      });
    } finally {
      redis.disconnect();
    }
  }

  it("gets its client's events, not another's, and ends with `revoked` soon after the session logs out", async () => {
    const mine = await createClient(ctx.api, ctx.admin, 'Cookie Stream');
    const theirs = await createClient(ctx.api, ctx.admin, 'Other Stream');
    const { token: session } = await userOf(ctx.api, ctx.admin, mine.client_id, 'viewer@cookie-stream.test');
    const own = new URL(ctx.api.url).origin;
    const cookie = { cookie: `${SESSION_COOKIE}=${session}` };

    const stream = await openStream(`${ctx.api.url}${STREAM}`, { ...cookie, 'sec-fetch-site': 'same-origin' });
    opened.push(stream);
    expect(stream.status).toBe(200);
    const connected = await stream.next((f) => f.event === 'connected');
    expect(connected.data).toMatchObject({ client_id: mine.client_id });

    const [ours, other, oursAgain] = [
      '31111111-1111-4111-8111-111111111111',
      '32222222-2222-4222-8222-222222222222',
      '33333333-3333-4333-8333-333333333333',
    ];
    await publish('job.started', mine.client_id, ours);
    await publish('job.started', theirs.client_id, other);
    await publish('job.completed', mine.client_id, oursAgain);
    expect((await stream.next((f) => f.data?.job_id === ours)).event).toBe('job.started');
    expect((await stream.next((f) => f.data?.job_id === oursAgain)).event).toBe('job.completed');
    expect(stream.frames.some((f) => f.data?.job_id === other)).toBe(false);

    // The console's sign-out: a same-origin POST with the cookie.
    const loggedOutAt = Date.now();
    const logout = await fetch(`${ctx.api.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { ...cookie, origin: own, 'sec-fetch-site': 'same-origin' },
    });
    expect(logout.status).toBe(200);
    const revoked = await stream.next((f) => f.event === 'revoked', ENDS_WITHIN_MS);
    expect(Date.now() - loggedOutAt).toBeLessThan(ENDS_WITHIN_MS);
    expect(revoked.data).toEqual({
      reason: 'session_ended',
      detail: expect.any(String),
      revoked_at: expect.any(String),
    });
    await stream.ended;
    expect(stream.frames.at(-1)).toBe(revoked);

    // The cookie opens no stream any more.
    const again = await openStream(`${ctx.api.url}${STREAM}`, cookie);
    opened.push(again);
    expect(again.status).toBe(401);
  });
});

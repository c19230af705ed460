import { createClient, useTestApi } from '../support/harness';
import { startSecondApi } from '../support/second-api';
import { approvedToken, brandsFor } from '../agents/agent-helpers';
import { userOf } from '../brands/brand-helpers';
import { openStream, type SseStream } from './sse-client';

const STREAM = '/api/v1/events/stream';

/**
 * How soon an open stream ends after its credential is taken away, on the process that took it and on another.
 * The invalidation reaches every process in milliseconds and the credential is then read again from the store;
 * the heartbeat (which also asks again) is a minute here and 30 s on the second process, so only the
 * invalidation can end a stream within this bound, with room for a loaded CI machine.
 */
const ENDS_WITHIN_MS = 10_000;

describe('an open event stream ends when its credential is taken away, on every API process', () => {
  const ctx = useTestApi({ SSE_HEARTBEAT_MS: '60000' });
  let second: { url: string; stop(): void };
  const opened: SseStream[] = [];
  let bystander: SseStream;
  beforeAll(async () => {
    second = await startSecondApi(ctx.api);
    // Another client's stream, which none of the changes below concern.
    const other = await createClient(ctx.api, ctx.admin, 'Bystander');
    bystander = await openStream(`${ctx.api.url}${STREAM}?token=${encodeURIComponent(other.triple)}`);
    opened.push(bystander);
  });
  afterAll(() => {
    opened.forEach((s) => s.close());
    second?.stop();
  });

  /** A stream with `token` on this process (query token) and one on the second process (bearer), both connected. */
  async function streamsOnBoth(token: string): Promise<SseStream[]> {
    const streams = [
      await openStream(`${ctx.api.url}${STREAM}?token=${encodeURIComponent(token)}`),
      await openStream(`${second.url}${STREAM}`, { authorization: `Bearer ${token}` }),
    ];
    opened.push(...streams);
    for (const s of streams) {
      expect(s.status).toBe(200);
      await s.next((f) => f.event === 'connected');
    }
    return streams;
  }

  /** Each stream's last frame is `revoked` with `reason`, the server closes it, and the credential reopens none. */
  async function expectEnded(streams: SseStream[], reason: string, token: string) {
    for (const s of streams) {
      const revoked = await s.next((f) => f.event === 'revoked', ENDS_WITHIN_MS);
      expect(revoked.data).toEqual({ reason, detail: expect.any(String), revoked_at: expect.any(String) });
      await s.ended;
      expect(s.frames.at(-1)).toBe(revoked);
    }
    expect((await openStream(`${ctx.api.url}${STREAM}?token=${encodeURIComponent(token)}`)).status).toBe(401);
  }

  it('ends a session stream at logout', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Logout Streams');
    const { token: session } = await userOf(ctx.api, ctx.admin, client.client_id, 'ops@logout-streams.test');
    const streams = await streamsOnBoth(session);
    expect((await ctx.api.call('POST', '/api/v1/auth/logout', { token: session })).status).toBe(200);
    await expectEnded(streams, 'session_ended', session);
  });

  it("ends an agent token's stream when the token is revoked", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Revoked Streams');
    await brandsFor(client.client_id, [941]);
    const { token, polled } = await approvedToken(ctx.api, ctx.admin, client);
    const streams = await streamsOnBoth(token);
    const revoked = await ctx.api.call('DELETE', `/api/v1/auth/pat/${polled.token_id}`, { token: client.triple });
    expect(revoked.status).toBe(200);
    await expectEnded(streams, 'token_revoked', token);
  });

  it('ends the streams of a client that is deactivated', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Deactivated Streams');
    const streams = await streamsOnBoth(client.triple);
    const off = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${client.client_id}`, {
      token: ctx.admin,
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    await expectEnded(streams, 'client_deactivated', client.triple);
  });

  it("ends the streams opened with a client's credentials when they are regenerated", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Regenerated Streams');
    const streams = await streamsOnBoth(client.triple);
    const regenerated = await ctx.api.call('POST', '/api/v1/dashboard/credentials/regenerate', {
      token: client.triple,
    });
    expect(regenerated.status).toBe(200);
    await expectEnded(streams, 'credentials_regenerated', client.triple);
    // A stream whose credential none of this touched stays open.
    expect(bystander.frames.map((f) => f.event)).toEqual(['connected']);
  });
});

import { approvedAgent, brandsFor } from '../agents/agent-helpers';
import { createClient, useTestApi } from '../support/harness';
import { watchScheduleId } from '../../workflows/watches-api';
import { SMALL_MAPS, WATCHES, watchPath } from './watch-helpers';

/**
 * A watch runs for whoever created it (or resumed it last): when that user is deactivated or deleted, or that agent
 * token revoked (or no longer acting for the brands it created the watch for), the watch and its schedule are paused
 * with the reason on the watch, until an authorised caller resumes it and becomes its creator (docs/watches.md).
 */
const made: { id: string; token: string }[] = [];
afterAll(async () => {
  // No schedule outlives the test on the shared Temporal (declared first: it runs before the API stops).
  for (const { id, token } of made) await ctx.api.call('DELETE', watchPath(id), { token });
});
const ctx = useTestApi();

const paused = async (watchId: string) =>
  (await ctx.api.rt.engines.temporal.schedule.getHandle(watchScheduleId(watchId)).describe()).state.paused;

async function dailyWatch(token: string, name: string, headers: Record<string, string> = {}) {
  const res = await ctx.api.call('POST', WATCHES, {
    token,
    headers,
    body: { name, maps_scrape: SMALL_MAPS, cadence: { interval_seconds: 86_400 } },
  });
  expect(res.status).toBe(201);
  made.push({ id: res.body.watch_id, token });
  return res.body;
}

/** A client_user of the client, signed in. */
async function signedInUser(client: { client_id: string }, email: string) {
  const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
    token: ctx.admin,
    body: { email, role: 'client_user', client_id: client.client_id, password: 'watch-password-123' },
  });
  expect(user.status).toBe(201);
  return { userId: user.body.user_id as string, session: await ctx.api.login(email, 'watch-password-123') };
}

it('a user deactivated or deleted pauses the watches it created; resuming makes the resumer their creator', async () => {
  const acme = await createClient(ctx.api, ctx.admin, 'Acme Creators');
  const ada = await signedInUser(acme, 'ada@acme-creators.test');
  const bob = await signedInUser(acme, 'bob@acme-creators.test');
  const adas = await dailyWatch(ada.session, "Ada's bakeries");
  const bobs = await dailyWatch(bob.session, "Bob's bakeries");
  const clients = await dailyWatch(acme.triple, "The client's bakeries");
  expect(adas).toMatchObject({ state: 'active', paused_reason: null, creator: { kind: 'user', id: ada.userId } });
  expect(clients.creator).toEqual({ kind: 'client', id: acme.client_id, brand_ids: [] });

  const deactivated = await ctx.api.call('PATCH', `/api/v1/dashboard/users/${ada.userId}`, {
    token: ctx.admin,
    body: { is_active: false },
  });
  expect(deactivated.status).toBe(200);
  const watch = await ctx.api.call('GET', watchPath(adas.watch_id), { token: acme.triple });
  expect(watch.body).toMatchObject({ state: 'paused', paused_reason: 'creator_deactivated' });
  expect(await paused(adas.watch_id)).toBe(true);
  // Nobody else's watch is touched.
  for (const id of [bobs.watch_id, clients.watch_id]) {
    expect((await ctx.api.call('GET', watchPath(id), { token: acme.triple })).body.state).toBe('active');
    expect(await paused(id)).toBe(false);
  }
  const triggered = await ctx.api.call('POST', watchPath(adas.watch_id, 'trigger'), { token: acme.triple });
  expect([triggered.status, triggered.body.code]).toEqual([409, 'watch_creator_gone']);

  // Bob resumes it: it is his now, and runs again.
  const resumed = await ctx.api.call('POST', watchPath(adas.watch_id, 'resume'), { token: bob.session });
  expect(resumed.body).toMatchObject({
    state: 'active',
    paused_reason: null,
    creator: { kind: 'user', id: bob.userId },
  });
  expect(await paused(adas.watch_id)).toBe(false);

  // Deleting bob pauses both his watches.
  expect((await ctx.api.call('DELETE', `/api/v1/dashboard/users/${bob.userId}`, { token: ctx.admin })).status).toBe(
    200,
  );
  for (const id of [adas.watch_id, bobs.watch_id]) {
    const now = await ctx.api.call('GET', watchPath(id), { token: acme.triple });
    expect(now.body).toMatchObject({ state: 'paused', paused_reason: 'creator_deactivated' });
    expect(await paused(id)).toBe(true);
  }
});

it('a token revoked pauses its watches; one revoked in a brand pauses those it created for that brand only', async () => {
  const acme = await createClient(ctx.api, ctx.admin, 'Acme Tokens');
  await brandsFor(acme.client_id, [811, 812]);
  const scopes = { requested_scopes: ['jobs:submit', 'jobs:read'] };
  const multi = await approvedAgent(ctx.api, ctx.admin, acme, { ...scopes, multi_brand: true });
  expect(multi.polled.brand_ids).toEqual([811, 812]);
  const for811 = await dailyWatch(multi.token, 'For 811', { 'x-brand-id': '811' });
  const forBoth = await dailyWatch(multi.token, 'For both');
  expect(for811.creator).toEqual({ kind: 'agent', id: multi.polled.token_id, brand_ids: [811] });
  expect(forBoth.creator.brand_ids).toEqual([811, 812]);

  const agentUserIn = async (brand: number) =>
    (await ctx.api.call('GET', `/api/v1/brands/${brand}/agent-users`, { token: acme.triple })).body.agent_users[0]
      .agent_user_id as string;
  const revokeIn = async (brand: number) =>
    expect(
      (
        await ctx.api.call('DELETE', `/api/v1/brands/${brand}/agent-users/${await agentUserIn(brand)}`, {
          token: acme.triple,
        })
      ).status,
    ).toBe(200);
  const stateOf = async (id: string) =>
    (await ctx.api.call('GET', watchPath(id), { token: acme.triple })).body as { state: string; paused_reason: string };

  // Out of 812: the watch for 811 alone is untouched; the one for both still has 811.
  await revokeIn(812);
  expect(await stateOf(for811.watch_id)).toMatchObject({ state: 'active', paused_reason: null });
  expect(await stateOf(forBoth.watch_id)).toMatchObject({ state: 'active', paused_reason: null });
  // Out of 811 too: neither has a brand left the token acts for.
  await revokeIn(811);
  for (const id of [for811.watch_id, forBoth.watch_id]) {
    expect(await stateOf(id)).toMatchObject({ state: 'paused', paused_reason: 'creator_token_revoked' });
    expect(await paused(id)).toBe(true);
  }

  // A token revoked outright pauses every watch it created.
  const single = await approvedAgent(ctx.api, ctx.admin, acme, scopes);
  const its = await dailyWatch(single.token, 'Its own');
  const revoked = await ctx.api.call('DELETE', `/api/v1/auth/pat/${single.polled.token_id}`, { token: acme.triple });
  expect(revoked.status).toBe(200);
  expect(await stateOf(its.watch_id)).toMatchObject({ state: 'paused', paused_reason: 'creator_token_revoked' });
  expect(await paused(its.watch_id)).toBe(true);
});

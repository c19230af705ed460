import { ActivityEventModel } from '../../src/activity/activity-event.model';
import { AccessTokenModel } from '../../src/agents/access-token.model';
import { JobModel, type JobType } from '../../src/jobs/job.model';
import { approvedToken, brandsFor } from '../agents/agent-helpers';
import { addMember, userOf } from '../brands/brand-helpers';
import { createClient, eventually, useTestApi } from '../support/harness';

const ids = (body: { agents: { token_id: string }[] }) => body.agents.map((a) => a.token_id).sort();

/** What one dashboard user of a client may see and do of what belongs to others of the same client. */
describe('an insider: a dashboard user of the client', () => {
  // Behind a trusted proxy on loopback, so that a test names the address a request comes from.
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0', TRUST_PROXY: 'loopback' });

  it('lists and revokes only the agent tokens of the brands they administer; the triple and super_admin all', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Insider Tokens');
    await brandsFor(client.client_id, [801, 802]);
    const alice = await userOf(ctx.api, ctx.admin, client.client_id, 'alice@insider.test');
    await addMember(ctx.api, ctx.admin, alice.userId!, 801, 'admin');
    const bob = await userOf(ctx.api, ctx.admin, client.client_id, 'bob@insider.test'); // administers nothing
    const carol = await userOf(ctx.api, ctx.admin, client.client_id, 'carol@insider.test');
    await addMember(ctx.api, ctx.admin, carol.userId!, 802, 'member'); // a member, not an admin

    const ownBrand = (await approvedToken(ctx.api, ctx.admin, client)).polled; // brand 801, the oldest
    const both = (await approvedToken(ctx.api, ctx.admin, client, { multi_brand: true })).polled; // 801 and 802
    const otherBrand = (await approvedToken(ctx.api, ctx.admin, client)).polled;
    await AccessTokenModel.updateOne(
      { _id: otherBrand.token_id, client_id: client.client_id },
      { brand_ids: [802] }, // as a brand_admin of 802 alone would have granted it
    );
    const list = (token: string) => ctx.api.call('GET', '/api/v1/auth/pat/agents', { token }).then((r) => r.body);

    const seenByAlice = await list(alice.token);
    expect(ids(seenByAlice)).toEqual([ownBrand.token_id, both.token_id].sort());
    expect(seenByAlice.total).toBe(2);
    // The other brand's id is not hers to see, even on a token she sees.
    expect(seenByAlice.agents.find((a: { token_id: string }) => a.token_id === both.token_id).brand_ids).toEqual([801]);
    // Anywhere in the answer: brand ids are numbers (a timestamp's or an id's digits may read 802 by chance).
    const numbers = (v: unknown): unknown[] =>
      typeof v === 'number' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(numbers) : [];
    expect(numbers(seenByAlice)).not.toContain(802);
    expect((await list(bob.token)).total).toBe(0);
    expect((await list(carol.token)).total).toBe(0);
    expect(ids(await list(client.triple))).toEqual([ownBrand.token_id, both.token_id, otherBrand.token_id].sort());
    const bySuper = await ctx.api.call('GET', `/api/v1/auth/pat/agents?client_id=${client.client_id}`, {
      token: ctx.admin,
    });
    expect(bySuper.body.total).toBe(3);

    const revoke = (token: string, tokenId: string) =>
      ctx.api.call('DELETE', `/api/v1/auth/pat/${tokenId}`, { token }).then((r) => r.status);
    expect(await revoke(alice.token, otherBrand.token_id)).toBe(404); // not hers to see
    expect(await revoke(alice.token, both.token_id)).toBe(403); // also acts for brand 802
    expect(await revoke(bob.token, ownBrand.token_id)).toBe(404);
    expect(await revoke(alice.token, ownBrand.token_id)).toBe(200);
    expect(await revoke(client.triple, both.token_id)).toBe(200);
    const left = await ctx.api.call('GET', '/api/v1/auth/pat/agents', { token: client.triple });
    expect(ids(left.body)).toEqual([otherBrand.token_id]);
  });

  it("queue statistics answer a tenant from its own jobs, never other tenants' runs", async () => {
    const mine = await createClient(ctx.api, ctx.admin, 'Queue Mine');
    const theirs = await createClient(ctx.api, ctx.admin, 'Queue Theirs');
    const job = (clientId: string, n: number, type: JobType, status: string) =>
      JobModel.create({ _id: `queue-stats-${clientId}-${n}`, client_id: clientId, type, status, params: {} });
    // States the start sweep leaves alone (it starts only queued jobs): each counts where it belongs.
    await job(mine.client_id, 1, 'maps-scrape', 'processing');
    await job(mine.client_id, 2, 'maps-scrape', 'processing');
    await job(mine.client_id, 3, 'research', 'running');
    await job(mine.client_id, 4, 'research', 'paused');
    await job(mine.client_id, 5, 'research', 'completed'); // finished: not counted
    await job(theirs.client_id, 1, 'maps-scrape', 'processing');

    const res = await ctx.api.call('GET', '/api/v1/system/queue-stats', { token: mine.triple });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      generated_at: expect.any(String),
      scope: 'client',
      jobs: {
        queued: { 'maps-scrape': 0, research: 0 },
        running: { 'maps-scrape': 2, research: 1 },
        paused: { 'maps-scrape': 0, research: 1 },
        active_total: 4,
      },
    });
    const user = await userOf(ctx.api, ctx.admin, theirs.client_id, 'queue-user@insider.test');
    const theirsSeen = await ctx.api.call('GET', '/api/v1/system/queue-stats', { token: user.token });
    expect(theirsSeen.body).toMatchObject({ scope: 'client', jobs: { active_total: 1 } });
    expect(theirsSeen.body.task_queues).toBeUndefined();

    // The operator still reads the platform from Temporal.
    const platform = await ctx.api.call('GET', '/api/v1/system/queue-stats', { token: ctx.admin });
    expect(platform.body.scope).toBe('platform');
    expect(platform.body.task_queues.map((q: { name: string }) => q.name)).toContain(ctx.api.config.bulkTaskQueue);
  });

  it("a credential regeneration by any of the client's users is told to its administrator and logged", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Regenerated');
    const dave = await userOf(ctx.api, ctx.admin, client.client_id, 'dave@regenerated.test');
    const res = await ctx.api.call('POST', '/api/v1/dashboard/credentials/regenerate', {
      token: dave.token,
      headers: { 'x-forwarded-for': '203.0.113.77' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      client_id: client.client_id,
      api_key: expect.any(String),
      api_secret: expect.any(String),
      regenerated_at: expect.any(String),
    });
    const notices = (to: string) =>
      eventually(async () => {
        const outbox = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(to)}`, {
          token: ctx.admin,
        });
        const found = outbox.body.messages.filter((m: { subject: string }) =>
          /credentials regenerated/.test(m.subject),
        );
        return found.length ? found : undefined;
      });
    const [notice] = await notices(client.admin_email);
    expect(notice.subject).toBe('Regenerated: API credentials regenerated');
    expect(notice.text).toContain('By: dave@regenerated.test (dashboard user, client_user)');
    expect(notice.text).toContain(`When: ${res.body.regenerated_at}`);
    expect(notice.text).toContain('From address: 203.0.113.77');
    expect(JSON.stringify(notice)).not.toContain(res.body.api_secret); // mail is stored and forwarded in clear
    const [logged] = await eventually(async () => {
      const found = await ActivityEventModel.find({ client_id: client.client_id, action: 'regenerateCredentials' });
      return found.length ? found : undefined;
    });
    expect(logged).toMatchObject({ actor_id: dave.userId, actor_kind: 'user', actor_name: 'dave@regenerated.test' });

    // The triple regenerating itself is told too, as what it is.
    const triple = `${client.client_id}:${res.body.api_key}:${res.body.api_secret}`;
    const again = await ctx.api.call('POST', '/api/v1/dashboard/credentials/regenerate', { token: triple });
    expect(again.status).toBe(200);
    const both = await eventually(async () => {
      const found = await notices(client.admin_email);
      return found.length === 2 ? found : undefined;
    });
    expect(both.map((m: { text: string }) => m.text).join('\n')).toContain("By: the client's own credential triple");
  });
});

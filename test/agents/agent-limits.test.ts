import { createClient, useTestApi, type CallResult } from '../support/harness';
import { fakeClock } from '../support/fake-clock';
import { startSecondApi } from '../support/second-api';
import { addMember, brandCast, userOf } from '../brands/brand-helpers';
import {
  approvalMail,
  approvedAgent,
  approvedToken,
  brandsFor,
  decideByLink,
  linkOf,
  pollUntil,
  requestAccess,
} from './agent-helpers';

const STATUS = '/api/v1/auth/pat/status';

/** The approve link's URL of a request's e-mail to the client's administrator, and the request's receipt. */
async function approveLink(ctx: ReturnType<typeof useTestApi>, client: { client_id: string; admin_email: string }) {
  const receipt = await requestAccess(ctx.api, client.client_id, { rate_limit_rpd: 500 });
  const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
  return { receipt, link: linkOf(mail, 'approve') };
}

const policyOf = (res: CallResult) => res.headers.get('ratelimit-policy');

/** What following the link shows a client asking for JSON (AccessDecisionPreview). */
const previewOf = (link: string): Promise<any> =>
  fetch(link, { headers: { accept: 'application/json' } }).then((r) => r.json());

describe("agents' limits: the approver's, offered with brand defaults, changed later by the agent's administrators", () => {
  // The API's clock stands still unless a test moves it: a minute's window ends when the test says.
  const clock = fakeClock();
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' }, { clock });

  it('a JSON approval carries its limits: the preview shows the offer, bad values are 422, the token gets them', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Json Limits');
    await brandsFor(client.client_id, [901]);
    const { receipt, link } = await approveLink(ctx, client);
    const preview = await previewOf(link);
    expect(preview.limits).toEqual({
      requested: { rate_limit_rpm: null, rate_limit_rpd: 500, monthly_budget_usd: null },
      brand_default_rpm: 60,
      offered: { rate_limit_rpm: 60, rate_limit_rpd: 500, monthly_budget_usd: null },
    });

    // Out of bounds, in JSON and in a form a JSON client sends: 422 with the field, and nothing decided.
    const badJson = await decideByLink(link, { rate_limit_rpm: 0 });
    expect(badJson.status).toBe(422);
    expect(((await badJson.json()) as any).errors).toEqual([expect.objectContaining({ field: 'rate_limit_rpm' })]);
    const badForm = await fetch(link, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'rate_limit_rpm=ten&monthly_budget_usd=2000000',
    });
    expect(badForm.status).toBe(422);
    expect(((await badForm.json()) as any).errors).toEqual([
      { location: 'body', field: 'rate_limit_rpm', message: 'must be a number' },
      { location: 'body', field: 'monthly_budget_usd', message: 'must be from 0 to 1000000' },
    ]);
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe('pending');

    // The rpm changed, the rpd removed, a budget set; nothing left out.
    const decided = await decideByLink(link, { rate_limit_rpm: 7, rate_limit_rpd: null, monthly_budget_usd: 1.5 });
    expect(decided.status).toBe(200);
    const approved = { rate_limit_rpm: 7, rate_limit_rpd: null, monthly_budget_usd: 1.5 };
    expect(((await decided.json()) as any).limits).toEqual(approved);
    const { access_token: token, token_id } = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    const status = await ctx.api.call('GET', STATUS, { token });
    expect(policyOf(status)).toBe('"rpm";q=7;w=60');
    expect(status.body.token).toMatchObject({ token_id, ...approved });
    expect(status.body.agent_users).toEqual([expect.objectContaining({ brand_id: 901, ...approved })]);
  });

  it("the brand's default_rate_limit is offered to an agent that asked for no rpm, and applied when unchanged", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Brand Default');
    await brandsFor(client.client_id, [911]);
    const set = await ctx.api.call('PATCH', '/api/v1/brands/911/settings', {
      token: client.triple,
      body: { default_rate_limit: 4 },
    });
    expect(set.body.default_rate_limit).toBe(4);
    const { receipt, link } = await approveLink(ctx, client);
    const preview = await previewOf(link);
    expect(preview.limits).toMatchObject({ brand_default_rpm: 4, offered: { rate_limit_rpm: 4 } });
    expect((await decideByLink(link)).status).toBe(200); // no body: the offer
    const { access_token: token } = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    clock.toNextWindow(60_000);
    const answers: CallResult[] = [];
    for (let i = 0; i < 5; i++) answers.push(await ctx.api.call('GET', STATUS, { token }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(policyOf(answers[0])).toBe('"rpm";q=4;w=60, "rpd";q=500;w=86400');
    expect(answers[0].body.agent_users[0]).toMatchObject({ rate_limit_rpm: 4, remaining: { rpm: 3, rpd: 499 } });

    // An agent that asked for an rpm is offered what it asked, not the default; 0 as the default offers none.
    await ctx.api.call('PATCH', '/api/v1/brands/911/settings', {
      token: client.triple,
      body: { default_rate_limit: 0 },
    });
    const none = await approveLink(ctx, client);
    const unlimited = await previewOf(none.link);
    expect(unlimited.limits).toMatchObject({ brand_default_rpm: null, offered: { rate_limit_rpm: null } });
  });

  it("a brand admin changes an agent's limits: held to them from the next request on every process, and listed", async () => {
    const { brandId, parties, clientA } = await brandCast(ctx.api, ctx.admin, 'agentlimits');
    const { token } = await approvedToken(ctx.api, ctx.admin, clientA, {}, { rate_limit_rpm: 1000 });
    const users = await ctx.api.call('GET', `/api/v1/brands/${brandId}/agent-users`, { token: parties.admin.token });
    const agentUserId = users.body.agent_users[0].agent_user_id;
    const path = `/api/v1/brands/${brandId}/agent-users/${agentUserId}`;
    clock.toNextWindow(60_000);
    const second = await startSecondApi(ctx.api, { clockAt: clock.now() }); // both processes in one minute
    try {
      const there = async (): Promise<CallResult> => {
        const res = await fetch(`${second.url}${STATUS}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: res.status, body: await res.json(), headers: res.headers };
      };
      // Both processes have the token (and its limits) cached; two requests are counted this minute.
      expect(policyOf(await there())).toBe('"rpm";q=1000;w=60');
      expect(policyOf(await ctx.api.call('GET', STATUS, { token }))).toBe('"rpm";q=1000;w=60');

      // Who may: the brand's admins and owner, the client's triple, a super_admin; a plain member is 403, anyone
      // outside the brand or the client 404, the agent itself 403 (agent tokens manage nothing).
      const change = (who: string, body: Record<string, unknown> = { rate_limit_rpm: 3 }) =>
        ctx.api.call('PATCH', path, { token: who, body }).then((r) => r.status);
      expect({
        member: await change(parties.member.token),
        outsider: await change(parties.outsider.token),
        otherClient: await change(parties.otherClient.token),
        otherTriple: await change(parties.otherTriple.token),
        agent: await change(token),
      }).toEqual({ member: 403, outsider: 404, otherClient: 404, otherTriple: 404, agent: 403 });
      expect(await change(parties.admin.token, { rate_limit_rpm: 0 })).toBe(422);

      const changed = await ctx.api.call('PATCH', path, {
        token: parties.admin.token,
        body: { rate_limit_rpm: 3, monthly_budget_usd: 5 },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ agent_user_id: agentUserId, rate_limit_rpm: 3, monthly_budget_usd: 5 });
      // The next request, on the other process too, is held to them (the two counted before still count).
      const next = [await there(), await ctx.api.call('GET', STATUS, { token }), await there()];
      expect(next.map(policyOf)).toEqual(Array(3).fill('"rpm";q=3;w=60'));
      expect(next.map((r) => r.status)).toEqual([200, 429, 429]);
      expect(next[0].body.agent_users[0]).toMatchObject({
        rate_limit_rpm: 3,
        monthly_budget_usd: 5,
        remaining: { rpm: 0, rpd: null },
      });
      const listed = await ctx.api.call('GET', `/api/v1/brands/${brandId}/agent-users`, { token: clientA.triple });
      expect(listed.body.agent_users[0]).toMatchObject({
        rate_limit_rpm: 3,
        rate_limit_rpd: null,
        monthly_budget_usd: 5,
        spend: { budget_usd: 5 },
      });

      // null removes a limit; the owner may too.
      const cleared = await ctx.api.call('PATCH', path, { token: parties.owner.token, body: { rate_limit_rpm: null } });
      expect(cleared.body).toMatchObject({ rate_limit_rpm: null, monthly_budget_usd: 5 });
      const free = await there();
      expect([free.status, policyOf(free)]).toEqual([200, null]);
    } finally {
      second.stop();
    }
    // Another client's agent user, under the caller's own brand's path, is 404 like any unknown one.
    const other = await createClient(ctx.api, ctx.admin, 'Other Limits');
    await brandsFor(other.client_id, [921]);
    await approvedToken(ctx.api, ctx.admin, other);
    const theirs = await ctx.api.call('GET', '/api/v1/brands/921/agent-users', { token: other.triple });
    const theirId = theirs.body.agent_users[0].agent_user_id;
    const foreign = await ctx.api.call('PATCH', `/api/v1/brands/${brandId}/agent-users/${theirId}`, {
      token: parties.admin.token,
      body: { rate_limit_rpm: 1 },
    });
    expect(foreign.status).toBe(404);
    const revoked = await ctx.api.call('DELETE', path, { token: parties.admin.token });
    expect(revoked.status).toBe(200);
    expect(
      (await ctx.api.call('PATCH', path, { token: parties.admin.token, body: { rate_limit_rpm: 1 } })).status,
    ).toBe(409);
  }, 120_000); // the role matrix's cast of logged-in users and a second API process, on a loaded machine

  it("a token without a brand: its client's administrators change its limits; its status shows them", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Brandless Limits'); // no brand
    const { token, polled } = await approvedAgent(ctx.api, ctx.admin, client, {
      rate_limit_rpm: 50,
      monthly_budget_usd: 3,
    });
    expect(polled.brand_ids).toEqual([]);
    const path = `/api/v1/auth/pat/${polled.token_id}/limits`;
    clock.toNextWindow(60_000);
    const before = await ctx.api.call('GET', STATUS, { token });
    expect(before.body).toMatchObject({
      agent_users: [],
      token: { rate_limit_rpm: 50, rate_limit_rpd: null, monthly_budget_usd: 3 },
      token_limits: {
        rate_limit_rpm: 50,
        rate_limit_rpd: null,
        monthly_budget_usd: 3,
        in_force: true,
        remaining: { rpm: 49, rpd: null },
      },
    });

    const clientUser = await userOf(ctx.api, ctx.admin, client.client_id, 'user@brandless.test');
    const brandAdmin = await userOf(ctx.api, ctx.admin, client.client_id, 'admin@brandless.test', 'brand_admin');
    const other = await createClient(ctx.api, ctx.admin, 'Brandless Other');
    const change = (who: string, body: Record<string, unknown>) =>
      ctx.api.call('PATCH', path, { token: who, body }).then((r) => r.status);
    expect({
      clientUser: await change(clientUser.token, { rate_limit_rpm: 1 }),
      otherTriple: await change(other.triple, { rate_limit_rpm: 1 }),
      agent: await change(token, { rate_limit_rpm: 1 }),
      bad: await change(client.triple, { rate_limit_rpd: 0 }),
    }).toEqual({ clientUser: 403, otherTriple: 404, agent: 403, bad: 422 });

    const byAdmin = await ctx.api.call('PATCH', path, { token: brandAdmin.token, body: { rate_limit_rpm: 2 } });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ token_id: polled.token_id, rate_limit_rpm: 2, monthly_budget_usd: 3 });
    // The next request is held to 2 a minute, counting the one made before the change.
    const next = await ctx.api.call('GET', STATUS, { token });
    expect([next.status, policyOf(next)]).toEqual([200, '"rpm";q=2;w=60']);
    expect(next.body.token_limits.remaining).toEqual({ rpm: 0, rpd: null });
    expect((await ctx.api.call('GET', STATUS, { token })).status).toBe(429);

    const bySuper = await ctx.api.call('PATCH', path, {
      token: ctx.admin,
      body: { rate_limit_rpm: null, rate_limit_rpd: 1000 },
    });
    expect(bySuper.body).toMatchObject({ rate_limit_rpm: null, rate_limit_rpd: 1000 });
    const listed = await ctx.api.call('GET', '/api/v1/auth/pat/agents', { token: client.triple });
    expect(listed.body.agents[0]).toMatchObject({ rate_limit_rpm: null, rate_limit_rpd: 1000 });
    expect((await ctx.api.call('GET', STATUS, { token })).status).toBe(200);
  });

  it('a token with brands is held to its agent users, not its own: its own limits are changed per brand (409)', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Branded Limits');
    await brandsFor(client.client_id, [931]);
    const brandAdmin = await userOf(ctx.api, ctx.admin, client.client_id, 'admin@branded.test', 'brand_admin');
    await addMember(ctx.api, ctx.admin, brandAdmin.userId!, 931, 'admin');
    const { token, polled } = await approvedToken(ctx.api, ctx.admin, client, {}, { rate_limit_rpm: 9 });
    const refused = await ctx.api.call('PATCH', `/api/v1/auth/pat/${polled.token_id}/limits`, {
      token: brandAdmin.token,
      body: { rate_limit_rpm: 1 },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('/api/v1/brands/{brand_id}/agent-users/{agent_user_id}');
    const status = await ctx.api.call('GET', STATUS, { token });
    expect(status.body.token_limits).toEqual({
      rate_limit_rpm: 9,
      rate_limit_rpd: null,
      monthly_budget_usd: null,
      in_force: false,
    });
    expect(status.body.agent_users[0].remaining).toEqual({ rpm: 8, rpd: null });

    // Its brand taken off it, the token acts for none and is held to its own limits, as approved.
    const users = await ctx.api.call('GET', '/api/v1/brands/931/agent-users', { token: client.triple });
    await ctx.api.call('DELETE', `/api/v1/brands/931/agent-users/${users.body.agent_users[0].agent_user_id}`, {
      token: client.triple,
    });
    const alone = await ctx.api.call('GET', STATUS, { token });
    expect([alone.status, policyOf(alone)]).toEqual([200, '"rpm";q=9;w=60']);
    expect(alone.body.token_limits).toMatchObject({ in_force: true });
  });
});

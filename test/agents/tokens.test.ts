import { createClient, eventually, useTestApi } from '../support/harness';
import { AccessTokenModel } from '../../src/agents/access-token.model';
import { startSecondApi } from '../support/second-api';
import { approvedToken, brandsFor } from './agent-helpers';

describe('agent tokens in use: scopes, brands, revocation and rotation', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it("enforces the contract's scopes on every operation (403 without them)", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Scopes', ['scopes.test']);
    const { token } = await approvedToken(ctx.api, ctx.admin, client, { requested_scopes: ['jobs:read'] });
    const as = (method: string, path: string, body?: unknown) =>
      ctx.api.call(method, path, { token, body }).then((r) => r.status);
    expect(await as('GET', '/api/v1/dashboard/client/jobs')).toBe(200);
    const before = Date.now();
    const status = await ctx.api.call('GET', '/api/v1/auth/pat/status', { token });
    expect(status.status).toBe(200);
    // The status call is itself a use of the token.
    expect(Date.parse(status.body.token.last_used_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(status.body.token.last_used_at)).toBeLessThanOrEqual(Date.now());
    expect(
      await as('POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', { query: 'x', country_code: 'NL' }),
    ).toBe(403);
    expect(await as('POST', '/api/v1/dashboard/content/tags', { name: 'x' })).toBe(403);
    expect(await as('GET', '/api/v1/auth/pat/agents')).toBe(403); // agent tokens do not manage tokens
    expect(await as('GET', '/api/v1/brands')).toBe(403);
    // Other callers are not agents: the token status is theirs to ask only as an agent.
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token: client.triple })).status).toBe(403);
  });

  it("lists the client's tokens (active by default), revokes one at once, also for another API process", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Revoke');
    const { token, polled } = await approvedToken(ctx.api, ctx.admin, client);
    const other = await createClient(ctx.api, ctx.admin, 'Other Tokens');
    const list = await ctx.api.call('GET', '/api/v1/auth/pat/agents', { token: client.triple });
    expect(list.body.agents.map((a: { token_id: string }) => a.token_id)).toEqual([polled.token_id]);
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/agents', { token: other.triple })).body.total).toBe(0);
    expect((await ctx.api.call('DELETE', `/api/v1/auth/pat/${polled.token_id}`, { token: other.triple })).status).toBe(
      404,
    );

    const second = await startSecondApi(ctx.api);
    const statusThere = (t: string) =>
      fetch(`${second.url}/api/v1/auth/pat/status`, { headers: { authorization: `Bearer ${t}` } }).then(
        (r) => r.status,
      );
    try {
      expect(await statusThere(token)).toBe(200);
      const revoked = await ctx.api.call('DELETE', `/api/v1/auth/pat/${polled.token_id}`, { token: client.triple });
      expect(revoked.body).toMatchObject({ token_id: polled.token_id, status: 'revoked' });
      expect(await statusThere(token)).toBe(401);
      expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token })).status).toBe(401);
    } finally {
      second.stop();
    }
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/agents', { token: client.triple })).body.total).toBe(0);
    const all = await ctx.api.call('GET', '/api/v1/auth/pat/agents?include_inactive=true', { token: client.triple });
    expect(all.body.agents[0].status).toBe('revoked');
    const bySuper = await ctx.api.call(
      'GET',
      `/api/v1/auth/pat/agents?include_inactive=true&client_id=${client.client_id}`,
      { token: ctx.admin },
    );
    expect(bySuper.body.total).toBe(1);
  });

  it("records a token's last use apart from the token, so a revocation racing it is never undone", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Last Use');
    const { token, polled } = await approvedToken(ctx.api, ctx.admin, client);
    // The first use writes last_used_at while the token is revoked at the same moment.
    const [used, revoked] = await Promise.all([
      ctx.api.call('GET', '/api/v1/auth/pat/status', { token }),
      ctx.api.call('DELETE', `/api/v1/auth/pat/${polled.token_id}`, { token: client.triple }),
    ]);
    expect([200, 401]).toContain(used.status);
    expect(revoked.status).toBe(200);
    const listed = await eventually(async () => {
      const res = await ctx.api.call('GET', '/api/v1/auth/pat/agents?include_inactive=true', { token: client.triple });
      const [agent] = res.body.agents;
      return used.status === 401 || agent.last_used_at ? agent : undefined;
    });
    expect(listed.status).toBe('revoked');
    expect(
      (await AccessTokenModel.findOne({ _id: polled.token_id, client_id: client.client_id }).lean())!.revoked_at,
    ).not.toBeNull();
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token })).status).toBe(401);
  });

  it('agent users: one per brand; revoked in one brand it keeps the other; regenerate rotates the token', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Agents');
    await brandsFor(client.client_id, [601, 602]);
    const { token, polled } = await approvedToken(ctx.api, ctx.admin, client, { multi_brand: true });
    const listIn = (brand: number, q = '') =>
      ctx.api.call('GET', `/api/v1/brands/${brand}/agent-users${q}`, { token: client.triple });
    const [in601] = (await listIn(601)).body.agent_users;
    const [in602] = (await listIn(602)).body.agent_users;
    expect(in601).toMatchObject({
      brand_id: 601,
      token_id: polled.token_id,
      is_active: true,
      project_name: 'lead-finder',
    });

    const revoked = await ctx.api.call('DELETE', `/api/v1/brands/601/agent-users/${in601.agent_user_id}`, {
      token: client.triple,
    });
    expect(revoked.body).toMatchObject({ is_active: false });
    expect((await listIn(601)).body.total).toBe(0);
    expect((await listIn(601, '?include_inactive=true')).body.total).toBe(1);
    const status = await ctx.api.call('GET', '/api/v1/auth/pat/status', { token });
    expect(status.body.token.brand_ids).toEqual([602]); // still works, for its other brand

    expect(
      (
        await ctx.api.call('POST', `/api/v1/brands/601/agent-users/${in601.agent_user_id}/regenerate`, {
          token: client.triple,
        })
      ).status,
    ).toBe(409);
    const rotated = await ctx.api.call('POST', `/api/v1/brands/602/agent-users/${in602.agent_user_id}/regenerate`, {
      token: client.triple,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.access_token).toMatch(/^lpat_/);
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token })).status).toBe(401);
    const fresh = await ctx.api.call('GET', '/api/v1/auth/pat/status', { token: rotated.body.access_token });
    expect(fresh.body.token).toMatchObject({ token_id: rotated.body.token_id, brand_ids: [602] });
    expect(
      (await ctx.api.call('GET', '/api/v1/brands/602/agent-users', { token: client.triple })).body.agent_users[0]
        .token_id,
    ).toBe(rotated.body.token_id);
  });
});

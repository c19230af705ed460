import { RelayUsageModel } from '../../src/integrations/integration.model';
import { createClient, eventually, useTestApi } from '../support/harness';
import { createKey, MAPS_KEY, received, resetSandbox } from '../integrations/helpers';
import { approvedAgent, brandsFor } from './agent-helpers';

const PRICE = 0.005; // the maps template's price_per_call
const STATUS = '/api/v1/auth/pat/status';

describe("an agent's monthly_budget_usd, applied to what it spends through the relays", () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it('refuses with 402 the call the remaining budget cannot cover, sending nothing; the spend is shown', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Budget');
    await brandsFor(client.client_id, [701]);
    await createKey(ctx.api, client.triple, 701, { provider_name: 'maps', credentials: { api_key: MAPS_KEY } });
    const providers = await ctx.api.call('GET', '/api/v1/brands/701/integrations/providers', {
      token: client.triple,
    });
    expect(providers.body.providers.find((p: any) => p.provider_name === 'maps').price_per_call).toBe(PRICE);
    const { token } = await approvedAgent(ctx.api, ctx.admin, client, { name: 'Scout', monthly_budget_usd: 0.012 });
    await resetSandbox(ctx.api);
    const geocode = (address: string) =>
      ctx.api.call('POST', '/api/v1/agent/proxy/maps/geocode/json', { token, body: { params: { address } } });

    expect((await geocode('Dam 1, Amsterdam')).status).toBe(200);
    expect((await geocode('Dam 2, Amsterdam')).status).toBe(200);
    const refused = await geocode('Dam 3, Amsterdam');
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('budget_exceeded');
    expect(refused.body.detail).toContain('monthly_budget_usd 0.01');
    expect(refused.body.detail).toContain('spent USD 0.0100');
    const nextMonth = new Date();
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
    nextMonth.setUTCHours(0, 0, 0, 0);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(Date.now() + retryAfter * 1000 - nextMonth.getTime())).toBeLessThan(5_000);
    // The refused call never reached the provider.
    expect((await received(ctx.api, '/maps/api/')).map((r) => r.query.address)).toEqual([
      'Dam 1, Amsterdam',
      'Dam 2, Amsterdam',
    ]);

    const spend = {
      period: 'monthly',
      period_end: nextMonth.toISOString(),
      amount_usd: 0.01,
      budget_usd: 0.012,
      remaining_usd: 0.002,
    };
    const status = await ctx.api.call('GET', STATUS, { token });
    expect(status.status).toBe(200);
    expect(status.body.agent_users).toEqual([
      expect.objectContaining({ brand_id: 701, monthly_budget_usd: 0.012, spend: expect.objectContaining(spend) }),
    ]);
    const listed = await ctx.api.call('GET', '/api/v1/brands/701/agent-users', { token: client.triple });
    expect(listed.body.agent_users[0]).toMatchObject({ name: 'Scout', spend });
    const agentUserId = listed.body.agent_users[0].agent_user_id;
    // The durable record of each call names the agent user that made it.
    const calls = await eventually(async () => {
      const rows = await RelayUsageModel.find({ client_id: client.client_id }).lean();
      return rows.length === 2 ? rows : undefined;
    });
    expect(calls.map((c) => [c.agent_user_id, c.amount])).toEqual([
      [agentUserId, PRICE],
      [agentUserId, PRICE],
    ]);

    // A dashboard caller of the same brand has no agent budget: the brand's key still works for it.
    const byTriple = await ctx.api.call('POST', '/api/v1/agent/proxy/maps/geocode/json', {
      token: client.triple,
      headers: { 'x-brand-id': '701' },
      body: { params: { address: 'Dam 4, Amsterdam' } },
    });
    expect(byTriple.status).toBe(200);
  });

  it('an agent without a budget spends without a limit, and its spend is still counted', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'No Budget');
    await brandsFor(client.client_id, [702]);
    await createKey(ctx.api, client.triple, 702, { provider_name: 'maps', credentials: { api_key: MAPS_KEY } });
    const { token } = await approvedAgent(ctx.api, ctx.admin, client);
    for (const address of ['a', 'b', 'c'])
      expect(
        (
          await ctx.api.call('POST', '/api/v1/agent/proxy/maps/geocode/json', {
            token,
            body: { params: { address } },
          })
        ).status,
      ).toBe(200);
    const status = await ctx.api.call('GET', STATUS, { token });
    expect(status.body.agent_users[0]).toMatchObject({
      monthly_budget_usd: null,
      rate_limit_rpm: 60, // asked for none: the brand's default_rate_limit, which the approval offered
      spend: { amount_usd: 0.015, budget_usd: null, remaining_usd: null },
    });
  });
});

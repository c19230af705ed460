import { parseList, type Item } from 'structured-headers';
import { createClient, useTestApi, type CallResult } from '../support/harness';
import { startSecondApi } from '../support/second-api';
import { fakeClock } from '../support/fake-clock';
import { approvedAgent, approvedToken, brandsFor, NO_LIMITS } from './agent-helpers';

const STATUS = '/api/v1/auth/pat/status';

/** The fields parsed as RFC 8941 Lists (by a parser of its own, not ours): policy name → its parameters. */
function listOf(res: CallResult, field: string): Map<string, Map<string, unknown>> {
  const value = res.headers.get(field);
  if (value === null) throw new Error(`no ${field} field`);
  const items = parseList(value) as Item[];
  for (const [bare] of items) expect(typeof bare).toBe('string'); // the draft: each Item is a String
  return new Map(items.map(([bare, params]) => [bare as string, params]));
}

/** The draft's rules for one answer's fields, whatever the status. */
function expectDraftFields(res: CallResult, quotas: Record<string, { q: number; w: number }>) {
  const policies = listOf(res, 'ratelimit-policy');
  const limits = listOf(res, 'ratelimit');
  expect([...policies.keys()]).toEqual(Object.keys(quotas));
  expect([...limits.keys()]).toEqual(Object.keys(quotas));
  for (const [name, { q, w }] of Object.entries(quotas)) {
    expect(Object.fromEntries(policies.get(name)!)).toEqual({ q, w });
    const { r, t } = Object.fromEntries(limits.get(name)!) as { r: number; t: number };
    expect(Number.isInteger(r) && r >= 0 && r <= q).toBe(true);
    expect(Number.isInteger(t) && t >= 1 && t <= w).toBe(true);
  }
  return Object.fromEntries([...limits].map(([name, params]) => [name, Object.fromEntries(params)])) as Record<
    string,
    { r: number; t: number }
  >;
}

describe('per-agent rate limits (rate_limit_rpm, rate_limit_rpd)', () => {
  // The API's clock stands still unless a test moves it: a minute's window ends when the test says.
  const clock = fakeClock();
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' }, { clock });

  it('rpm 3 holds across two API processes: 8 requests at once, 3 answered, 5 refused with 429', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Rpm');
    await brandsFor(client.client_id, [601]);
    const { token } = await approvedAgent(ctx.api, ctx.admin, client, { rate_limit_rpm: 3, rate_limit_rpd: 1000 });
    clock.toNextWindow(60_000);
    const second = await startSecondApi(ctx.api, { clockAt: clock.now() }); // both processes in one minute
    try {
      const there = async (): Promise<CallResult> => {
        const res = await fetch(`${second.url}${STATUS}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: res.status, body: await res.json(), headers: res.headers };
      };
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? there() : ctx.api.call('GET', STATUS, { token }))),
      );
      const quotas = { rpm: { q: 3, w: 60 }, rpd: { q: 1000, w: 86_400 } };
      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      expect([ok.length, refused.length]).toEqual([3, 5]);
      // What is left goes down with each answered request, and the day counts the same requests.
      const left = ok.map((a) => expectDraftFields(a, quotas));
      expect(left.map((l) => l.rpm.r).sort()).toEqual([0, 1, 2]);
      expect(left.map((l) => l.rpd.r).sort()).toEqual([997, 998, 999]);
      for (const res of refused) {
        const fields = expectDraftFields(res, quotas);
        expect(fields.rpm.r).toBe(0);
        expect(fields.rpd.r).toBe(997); // a refused request is not counted
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBe(60);
        // The draft: Retry-After never earlier than the end of the exhausted policy's effective window.
        expect(retryAfter).toBeGreaterThanOrEqual(fields.rpm.t);
        expect(res.body).toEqual({
          detail: expect.stringContaining('3 requests per minute'),
          code: 'rate_limited',
        });
      }
    } finally {
      second.stop();
    }
  });

  it('a token that acts for no brand is held to its approved limits: rpm 3, its 4th request in a minute is 429', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'No Brand'); // a client without any brand
    const { token, polled } = await approvedAgent(ctx.api, ctx.admin, client, { rate_limit_rpm: 3 });
    expect(polled.brand_ids).toEqual([]);
    clock.toNextWindow(60_000);
    clock.advance(20_000);
    const answers: CallResult[] = [];
    for (let i = 0; i < 4; i++) answers.push(await ctx.api.call('GET', STATUS, { token }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.slice(0, 3).map((a) => expectDraftFields(a, { rpm: { q: 3, w: 60 } }).rpm.r)).toEqual([2, 1, 0]);
    expect(answers[3].body).toEqual({ detail: expect.stringContaining('3 requests per minute'), code: 'rate_limited' });
    expect(answers[3].headers.get('retry-after')).toBe('40');
    clock.toNextWindow(60_000);
    expect((await ctx.api.call('GET', STATUS, { token })).status).toBe(200); // the next minute's allowance
  });

  it('rpd: past the day allowance, 429 until the UTC day ends', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Rpd');
    await brandsFor(client.client_id, [602]);
    // Asked for no rpm: the brand's default (60) is offered, and approving unchanged applies it too.
    const { token } = await approvedAgent(ctx.api, ctx.admin, client, { rate_limit_rpd: 2 });
    const quotas = { rpm: { q: 60, w: 60 }, rpd: { q: 2, w: 86_400 } };
    const first = await ctx.api.call('GET', STATUS, { token });
    expect(first.status).toBe(200);
    expect(expectDraftFields(first, quotas).rpd.r).toBe(1);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token })).status).toBe(200);
    const refused = await ctx.api.call('GET', STATUS, { token });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(refused.body.detail).toContain('2 requests per day');
    const untilMidnight = Math.ceil((86_400_000 - (clock.now() % 86_400_000)) / 1000);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(untilMidnight);
    expect(expectDraftFields(refused, quotas).rpd).toEqual({ r: 0, t: retryAfter });
  });

  it('counts per agent user: a multi-brand token has an allowance per brand; no header counts in all', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Per Brand');
    await brandsFor(client.client_id, [611, 612]);
    const { token, polled } = await approvedAgent(ctx.api, ctx.admin, client, {
      multi_brand: true,
      rate_limit_rpm: 2,
    });
    expect(polled.brand_ids).toEqual([611, 612]);
    clock.toNextWindow(60_000);
    const as = (brand?: number, t = token) =>
      ctx.api.call('GET', STATUS, { token: t, headers: brand ? { 'x-brand-id': String(brand) } : {} });
    expect((await as(611)).status).toBe(200);
    expect((await as()).status).toBe(200); // counts in 611 and 612
    expect((await as(611)).status).toBe(429);
    const in612 = await as(612);
    expect(in612.status).toBe(200);
    expect(expectDraftFields(in612, { rpm: { q: 2, w: 60 } }).rpm.r).toBe(0);
    expect((await as()).status).toBe(429);
    // A rotated token is the same agent user: its allowance does not start again.
    const users = await ctx.api.call('GET', '/api/v1/brands/611/agent-users', { token: client.triple });
    const rotated = await ctx.api.call(
      'POST',
      `/api/v1/brands/611/agent-users/${users.body.agent_users[0].agent_user_id}/regenerate`,
      { token: client.triple },
    );
    expect(rotated.status).toBe(200);
    expect((await as(611, rotated.body.access_token)).status).toBe(429);
  });

  it('callers without limits get no RateLimit fields', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Unlimited');
    await brandsFor(client.client_id, [621]);
    const { token } = await approvedToken(ctx.api, ctx.admin, client, {}, NO_LIMITS); // the brand default removed
    for (const t of [token, client.triple]) {
      const res = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: t });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});

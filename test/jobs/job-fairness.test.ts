import { createClient, useTestApi } from '../support/harness';
import { approvedAgent, brandsFor } from '../agents/agent-helpers';
import { fakeClock } from '../support/fake-clock';
import { SUBMIT, jobPath, shownQuotas, waitForStatus, expectQuotaRefusal } from './support';

/**
 * Fairness between tenants beyond each one's own bounds (docs/security.md, "Jobs per tenant"): the fair share of the
 * deployment's bound on unfinished jobs, and a brand's bounds on the jobs agents submit for it.
 */
const small = { query: 'bakery', country_code: 'BE', max_locations: 1, max_results: 3 };
const USAGE = '/api/v1/dashboard/client/usage';

describe('the fair share of the deployment bound', () => {
  // A bound of 4, its last half kept for clients under their share; no worker, so accepted jobs stay unfinished.
  const ctx = useTestApi({
    RUN_WORKER: 'false',
    JOB_MAX_UNFINISHED: '4',
    JOB_CLIENT_MAX_UNFINISHED: '3',
    JOB_FAIR_SHARE_RESERVE_PERCENT: '50',
  });
  const submit = (token: string) => ctx.api.call('POST', SUBMIT, { token, body: small });

  it('a client holding its share is refused near the bound, so the rest is kept for clients below theirs', async () => {
    const [acme, globex, initech] = [
      await createClient(ctx.api, ctx.admin, 'Acme Share'),
      await createClient(ctx.api, ctx.admin, 'Globex Share'),
      await createClient(ctx.api, ctx.admin, 'Initech Share'),
    ];
    // Below the reserve (2 of 4 unfinished) a client takes what its own bound allows.
    expect([(await submit(acme.triple)).status, (await submit(acme.triple)).status]).toEqual([200, 200]);
    // At 2 of 4 the last half is the reserve: acme, the only client with unfinished jobs, holds 2, its share of the
    // bound among itself and one more client (4 / 2), and is refused though its own bound (3) is not reached.
    const held = await submit(acme.triple);
    expect([held.status, held.body.code, held.headers.get('retry-after')]).toEqual([503, 'job_fair_share', '5']);
    expect(held.body.detail).toMatch(/this client holds its share of them \(2\)/);
    expect(shownQuotas(held)['jobs-unfinished']).toEqual({ q: 3, r: 1 });
    // A client below its share (4 / 3 with globex counted) is admitted from the reserve, once.
    expect((await submit(globex.triple)).status).toBe(200);
    expect((await submit(globex.triple)).body.code).toBe('job_fair_share');
    // A third client still finds room: the reserve was not taken by the first two.
    expect((await submit(initech.triple)).status).toBe(200);
    // The deployment's bound is reached: the capacity guard refuses everyone.
    const full = await submit(initech.triple);
    expect([full.status, full.body.detail]).toEqual([503, 'Service busy (4 jobs are waiting or running); retry later']);
  });
});

describe('with a worker running', () => {
  // The API's clock stands at noon (UTC) of the real day: a test's submits fall in one day's window.
  const clock = fakeClock(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 12 * 3_600_000);
  const ctx = useTestApi({}, { clock });
  const submit = (token: string, body: object = small, headers: Record<string, string> = {}) =>
    ctx.api.call('POST', SUBMIT, { token, body, headers });
  const setLimits = async (clientId: string, jobLimits: Record<string, number | null>) =>
    expect(
      (
        await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${clientId}`, {
          token: ctx.admin,
          body: { job_limits: jobLimits },
        })
      ).status,
    ).toBe(200);

  it("a job that completes frees its client's slot before its end is announced", async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Ends');
    await setLimits(acme.client_id, { max_unfinished: 1 });
    const first = await submit(acme.triple, { query: 'florist', country_code: 'LU', max_locations: 1, max_results: 2 });
    expect(first.status).toBe(200);
    await waitForStatus(ctx.api, acme.triple, jobPath(first.body.job_id), ['completed']);
    const next = await submit(acme.triple);
    expect(next.status).toBe(200);
    expect(shownQuotas(next)['jobs-unfinished']).toEqual({ q: 1, r: 0 });
  });

  it("a brand's settings bound the jobs agents submit for it, on top of the client's", async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Brands');
    await setLimits(acme.client_id, { max_unfinished: 0 });
    await brandsFor(acme.client_id, [701]);
    const settings = await ctx.api.call('PATCH', '/api/v1/brands/701/settings', {
      token: ctx.admin,
      body: { default_campaign_max_concurrent: 1, default_campaign_quota_daily: 2, default_campaign_max_locations: 1 },
    });
    expect(settings.status).toBe(200);
    const { token } = await approvedAgent(ctx.api, ctx.admin, acme, { requested_scopes: ['jobs:submit', 'jobs:read'] });
    // Slow enough to stay unfinished while the test looks (a worker runs here: the approval needs it).
    const job = { query: 'bakery sbx-slow-60000', country_code: 'NL' };

    const first = await submit(token, job);
    expect(first.body).toMatchObject({ status: 'queued', max_locations: 1 }); // the brand's cap, none given
    const shown = shownQuotas(first);
    expect(shown['brand-jobs-unfinished']).toEqual({ q: 1, r: 0 });
    expect(shown['brand-jobs-day']).toMatchObject({ q: 2, r: 1, w: 86_400 });
    expect(shown['brand-jobs-month']).toMatchObject({ q: 4000, r: 3999 }); // the default setting
    expect((await ctx.api.call('GET', jobPath(first.body.job_id), { token })).body.max_locations).toBe(1);

    const wide = await submit(token, { ...job, max_locations: 3 });
    expect([wide.status, wide.body.code]).toEqual([422, 'job_cap_exceeded']);
    expect(wide.body.errors[0].message).toBe("at most 1 (brand 701's default_campaign_max_locations)");
    expect(expectQuotaRefusal(await submit(token, job), 'brand_job_unfinished_limit')).toBe(5);
    // The client's own jobs are not the brand's.
    const own = await submit(acme.triple, { ...job, max_locations: 3 });
    expect(own.status).toBe(200);
    expect((await ctx.api.call('POST', jobPath(own.body.job_id, 'cancel'), { token: acme.triple })).status).toBe(200);
    const usage = await ctx.api.call('GET', USAGE, { token });
    expect(usage.body.brands).toEqual([
      expect.objectContaining({ brand_id: 701, unfinished: { limit: 1, used: 1, source: 'brand' } }),
    ]);

    expect((await ctx.api.call('POST', jobPath(first.body.job_id, 'cancel'), { token })).status).toBe(200);
    const again = await submit(token, job, { 'x-brand-id': '701' });
    expect(again.status).toBe(200);
    expect((await ctx.api.call('POST', jobPath(again.body.job_id, 'cancel'), { token })).status).toBe(200);
    const byDay = await submit(token, job);
    expectQuotaRefusal(byDay, 'brand_job_daily_quota');
    expect(byDay.body.detail).toMatch(/^Brand 701 has used its 2 jobs of this UTC day/);
    // A brand the token does not act for is refused, as everywhere.
    expect((await submit(token, job, { 'x-brand-id': '702' })).status).toBe(403);
  });
});

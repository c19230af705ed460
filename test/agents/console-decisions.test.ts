import { createClient, useTestApi, type TestApi } from '../support/harness';
import { AccessRequestModel } from '../../src/agents/access-request.model';
import { approvalMail, brandsFor, decideByLink, linkOf, pollUntil, requestAccess } from './agent-helpers';

const PASSWORD = 'console-approver-password-1';
const LIST = '/api/v1/auth/pat/requests';
const decision = (requestId: string) => `/api/v1/auth/pat/requests/${requestId}/decision`;

/** A dashboard user of the client (a brand_admin administers `brandIds`), signed in. */
async function signedInUser(
  api: TestApi,
  admin: string,
  clientId: string,
  email: string,
  role: 'brand_admin' | 'client_user',
  brandIds: number[] = [],
) {
  const user = await api.call('POST', '/api/v1/dashboard/users', {
    token: admin,
    body: { email, role, client_id: clientId, password: PASSWORD },
  });
  expect(user.status).toBe(201);
  for (const brandId of brandIds) {
    const res = await api.call('POST', `/api/v1/dashboard/users/${user.body.user_id}/brands`, {
      token: admin,
      body: { brand_id: brandId, role: 'admin' },
    });
    expect(res.status).toBe(201);
  }
  return { email, token: await api.login(email, PASSWORD) };
}

describe('access requests decided in the console (listAccessRequests, decideAccessRequest)', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it('a brand_admin sees their client’s pending requests with the facts of the approve page, and approves with limits', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Console Brand');
    const other = await createClient(ctx.api, ctx.admin, 'Console Other');
    await brandsFor(client.client_id, [2101, 2102]);
    await brandsFor(other.client_id, [2111]);
    const approver = await signedInUser(
      ctx.api,
      ctx.admin,
      client.client_id,
      'ba@console-brand.test',
      'brand_admin',
      [2102],
    );
    const receipt = await requestAccess(ctx.api, client.client_id, {
      ttl_hours: 48,
      rate_limit_rpd: 500,
      fingerprint: { hostname: 'dev-laptop', cwd: '/home/dev/lead-finder' },
    });
    const elsewhere = await requestAccess(ctx.api, other.client_id);

    const list = await ctx.api.call('GET', LIST, { token: approver.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(list.body.requests[0]).toMatchObject({
      scopes_in_words: [{ scope: 'jobs:read', words: expect.stringContaining("read the client's jobs") }],
      request_id: receipt.request_id,
      client_id: client.client_id,
      client_name: 'Console Brand',
      status: 'pending',
      owner_email: 'dev@agency.test',
      project_name: 'lead-finder',
      requested_scopes: ['jobs:read'],
      ttl_hours: 48,
      multi_brand: false,
      fingerprint: { hostname: 'dev-laptop', cwd: '/home/dev/lead-finder' },
      brand_ids: [2102],
      brands: [{ brand_id: 2102, name: 'Brand 2102' }],
      decisions: { approved: { can_decide: true, reason: null }, denied: { can_decide: true, reason: null } },
      decided_by: null,
      approved_limits: null,
    });
    // The offer is the approve link's, for this approver: the link's own preview says the same.
    const mail = await approvalMail(ctx.api, ctx.admin, approver.email, receipt.request_id);
    const preview = (await (
      await fetch(linkOf(mail, 'approve'), { headers: { accept: 'application/json' } })
    ).json()) as any;
    expect(list.body.requests[0].limits).toEqual(preview.limits);
    expect(list.body.requests[0].limits.requested).toMatchObject({ rate_limit_rpd: 500 });

    // Another client's request is not theirs: 404, and nothing decided.
    const foreign = await ctx.api.call('POST', decision(elsewhere.request_id), {
      token: approver.token,
      body: { verdict: 'approved' },
    });
    expect(foreign.status).toBe(404);

    const approved = await ctx.api.call('POST', decision(receipt.request_id), {
      token: approver.token,
      headers: { 'idempotency-key': `"${receipt.request_id}"` },
      body: { verdict: 'approved', limits: { rate_limit_rpm: 2, monthly_budget_usd: null } },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      request_id: receipt.request_id,
      status: 'approved',
      brand_ids: [2102],
      limits: { rate_limit_rpm: 2, rate_limit_rpd: 500, monthly_budget_usd: null },
    });
    const polled = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    expect(polled.access_token).toMatch(/^lpat_/);

    expect((await ctx.api.call('GET', LIST, { token: approver.token })).body.total).toBe(0);
    const decided = await ctx.api.call('GET', `${LIST}?status=approved`, { token: approver.token });
    expect(decided.body.requests).toEqual([
      expect.objectContaining({
        request_id: receipt.request_id,
        decided_by: approver.email,
        approved_limits: { rate_limit_rpm: 2, rate_limit_rpd: 500, monthly_budget_usd: null },
        decisions: {
          approved: { can_decide: false, reason: 'Access request already approved' },
          denied: { can_decide: false, reason: 'Access request already approved' },
        },
      }),
    ]);
    // The e-mail link cannot decide it again.
    expect((await decideByLink(linkOf(mail, 'deny'))).status).toBe(409);

    // The agent's token lists with its agent user, its limits and this month's spend.
    const tokens = await ctx.api.call('GET', '/api/v1/auth/pat/agents', { token: approver.token });
    expect(tokens.body.agents[0]).toMatchObject({
      token_id: approved.body.token_id,
      agent_users: [
        expect.objectContaining({
          brand_id: 2102,
          rate_limit_rpm: 2,
          rate_limit_rpd: 500,
          spend: expect.objectContaining({ period: 'monthly', amount_usd: 0 }),
        }),
      ],
    });
  });

  it('a brand_admin may not approve a multi_brand request (it says why), but may deny it', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Console Multi');
    await brandsFor(client.client_id, [2201, 2202]);
    const approver = await signedInUser(
      ctx.api,
      ctx.admin,
      client.client_id,
      'ba@console-multi.test',
      'brand_admin',
      [2201],
    );
    const receipt = await requestAccess(ctx.api, client.client_id, { multi_brand: true });
    const [listed] = (await ctx.api.call('GET', LIST, { token: approver.token })).body.requests;
    expect(listed).toMatchObject({
      multi_brand: true,
      brand_ids: [],
      brands: [],
      decisions: {
        approved: { can_decide: false, reason: "A multi-brand request needs the client's administrator" },
        denied: { can_decide: true, reason: null },
      },
    });
    const refused = await ctx.api.call('POST', decision(receipt.request_id), {
      token: approver.token,
      body: { verdict: 'approved' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("A multi-brand request needs the client's administrator");
    expect((await AccessRequestModel.findById(receipt.request_id).lean())!.status).toBe('pending');

    const limitsOnDenial = await ctx.api.call('POST', decision(receipt.request_id), {
      token: approver.token,
      body: { verdict: 'denied', limits: { rate_limit_rpm: 5 } },
    });
    expect(limitsOnDenial.status).toBe(422);
    const denied = await ctx.api.call('POST', decision(receipt.request_id), {
      token: approver.token,
      body: { verdict: 'denied' },
    });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied', token_id: null });
    expect((await pollUntil(ctx.api, receipt, (b) => b.status !== 'pending')).status).toBe('denied');
    expect((await AccessRequestModel.findById(receipt.request_id).lean())!.decided_by).toBe(approver.email);
  });

  it('a super_admin sees every client’s requests, or the chosen client’s, and approves as its administrator', async () => {
    const a = await createClient(ctx.api, ctx.admin, 'Console Super A');
    const b = await createClient(ctx.api, ctx.admin, 'Console Super B');
    await brandsFor(a.client_id, [2301, 2302]);
    const inA = await requestAccess(ctx.api, a.client_id, { multi_brand: true });
    const inB = await requestAccess(ctx.api, b.client_id);

    const all = await ctx.api.call('GET', LIST, { token: ctx.admin });
    const ids = all.body.requests.map((r: { request_id: string }) => r.request_id);
    expect(ids).toEqual(expect.arrayContaining([inA.request_id, inB.request_id]));
    const chosen = await ctx.api.call('GET', LIST, {
      token: ctx.admin,
      headers: { 'x-selected-client-id': b.client_id },
    });
    expect(chosen.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual([inB.request_id]);
    expect(chosen.body.requests[0].client_name).toBe('Console Super B');
    // Outside the chosen client: 404.
    const outside = await ctx.api.call('POST', decision(inA.request_id), {
      token: ctx.admin,
      headers: { 'x-selected-client-id': b.client_id },
      body: { verdict: 'approved' },
    });
    expect(outside.status).toBe(404);

    const approved = await ctx.api.call('POST', decision(inA.request_id), {
      token: ctx.admin,
      body: { verdict: 'approved', limits: { rate_limit_rpm: 10 } },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', brand_ids: [2301, 2302] });
    expect((await AccessRequestModel.findById(inA.request_id).lean())!.decided_by).toBe('root@example.test');
  });

  it('the console and the e-mail link never both decide: whichever is second answers 409', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Console Race');
    await brandsFor(client.client_id, [2401]);
    const byLink = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, byLink.request_id);
    expect((await decideByLink(linkOf(mail, 'deny'))).status).toBe(200);
    const late = await ctx.api.call('POST', decision(byLink.request_id), {
      token: ctx.admin,
      body: { verdict: 'approved' },
    });
    expect(late.status).toBe(409);
    expect(late.body.detail).toBe('Access request already denied');

    const byConsole = await requestAccess(ctx.api, client.client_id);
    const mail2 = await approvalMail(ctx.api, ctx.admin, client.admin_email, byConsole.request_id);
    const first = await ctx.api.call('POST', decision(byConsole.request_id), {
      token: ctx.admin,
      body: { verdict: 'approved' },
    });
    expect(first.status).toBe(200);
    const second = await decideByLink(linkOf(mail2, 'deny'));
    expect(second.status).toBe(409);
    expect((await pollUntil(ctx.api, byConsole, (r) => r.status !== 'pending')).status).toBe('approved');
  });

  it('a client_user, a credential triple and an agent token are refused (403)', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Console Refused');
    await brandsFor(client.client_id, [2501]);
    const user = await signedInUser(ctx.api, ctx.admin, client.client_id, 'cu@console-refused.test', 'client_user');
    const receipt = await requestAccess(ctx.api, client.client_id);
    for (const token of [user.token, client.triple]) {
      expect((await ctx.api.call('GET', LIST, { token })).status).toBe(403);
      const post = await ctx.api.call('POST', decision(receipt.request_id), { token, body: { verdict: 'approved' } });
      expect(post.status).toBe(403);
    }
    const approved = await ctx.api.call('POST', decision(receipt.request_id), {
      token: ctx.admin,
      body: { verdict: 'approved' },
    });
    expect(approved.status).toBe(200);
    const { access_token } = await pollUntil(ctx.api, receipt, (r) => r.status === 'approved');
    expect((await ctx.api.call('GET', LIST, { token: access_token })).status).toBe(403);
  });
});

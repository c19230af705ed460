import { AccessRequestModel } from '../../src/agents/access-request.model';
import { AgentUserModel } from '../../src/agents/agent-user.model';
import { createClient, useTestApi, type TestApi } from '../support/harness';
import { approvalMail, brandsFor, decideByLink, linkOf, pollUntil, requestAccess } from '../agents/agent-helpers';
import { deliveriesSettled } from '../support/deliveries';

const PASSWORD = 'brand-admin-password-1';

/** A brand_admin of the client who administers `brandIds` (and is a plain member of `memberOf`). */
async function brandAdmin(
  api: TestApi,
  admin: string,
  clientId: string,
  email: string,
  brandIds: number[],
  memberOf: number[] = [],
) {
  const user = await api.call('POST', '/api/v1/dashboard/users', {
    token: admin,
    body: { email, role: 'brand_admin', client_id: clientId, password: PASSWORD },
  });
  expect(user.status).toBe(201);
  for (const [brandId, role] of [
    ...brandIds.map((b) => [b, 'admin'] as const),
    ...memberOf.map((b) => [b, 'member'] as const),
  ]) {
    const res = await api.call('POST', `/api/v1/dashboard/users/${user.body.user_id}/brands`, {
      token: admin,
      body: { brand_id: brandId, role },
    });
    expect(res.status).toBe(201);
  }
  return { email, userId: user.body.user_id as string };
}

/** Every outbox message to `to` about this request. */
async function mailsTo(api: TestApi, admin: string, to: string, requestId: string) {
  const res = await api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(to)}`, { token: admin });
  return res.body.messages.filter((m: { links: string[] }) => m.links.some((l) => l.includes(requestId)));
}

describe('approval links: a GET decides nothing', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it('fetching both links, as a mail scanner does, changes nothing; the POST decides', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Scanned');
    await brandsFor(client.client_id, [1101]);
    const receipt = await requestAccess(ctx.api, client.client_id, { requested_scopes: ['jobs:read', 'content:read'] });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    for (const verdict of ['approve', 'deny'] as const) {
      for (const accept of ['text/html', 'application/json', '*/*']) {
        const res = await fetch(linkOf(mail, verdict), { headers: { accept } });
        expect(res.status).toBe(200);
      }
      // not an operation of the contract; it decides nothing either
      await fetch(linkOf(mail, verdict), { method: 'HEAD' });
    }
    const preview = await (await fetch(linkOf(mail, 'approve'), { headers: { accept: 'application/json' } })).json();
    expect(preview).toMatchObject({
      request_id: receipt.request_id,
      status: 'pending',
      verdict: 'approved',
      requested_scopes: ['jobs:read', 'content:read'],
      brand_ids: [1101],
      can_decide: true,
      reason: null,
      approver_email: client.admin_email,
    });
    expect((await AccessRequestModel.findById(receipt.request_id).lean())!.status).toBe('pending');
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe('pending');

    const decided = await decideByLink(linkOf(mail, 'approve'));
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ status: 'approved', brand_ids: [1101] });
    const after = await (await fetch(linkOf(mail, 'deny'), { headers: { accept: 'application/json' } })).json();
    expect(after).toMatchObject({ status: 'approved', can_decide: false, reason: 'Access request already approved' });
  });

  it('the confirmation page is never cached and sends no referrer (its URL carries the token)', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Private Page');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const res = await fetch(linkOf(mail, 'approve'), { headers: { accept: 'text/html' } });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self'");
  });
});

describe('who may approve', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it("the requester's own address gets no approval link; the others do", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Self Request');
    await brandsFor(client.client_id, [1201]);
    const own = await brandAdmin(ctx.api, ctx.admin, client.client_id, 'owner@self-request.test', [1201]);
    const other = await brandAdmin(ctx.api, ctx.admin, client.client_id, 'other@self-request.test', [1201]);
    const receipt = await requestAccess(ctx.api, client.client_id, { owner_email: 'Owner@Self-Request.test' });
    await approvalMail(ctx.api, ctx.admin, other.email, receipt.request_id);
    await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    await deliveriesSettled(ctx.api); // the request's e-mails are all sent: the owner's would have arrived
    expect(await mailsTo(ctx.api, ctx.admin, own.email, receipt.request_id)).toEqual([]);
  });

  it('a decision through a link sent to the requester is refused', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Own Link');
    await brandsFor(client.client_id, [1301]);
    const receipt = await requestAccess(ctx.api, client.client_id, { owner_email: 'someone@own-link.test' });
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    // The request names as its owner the address the link was sent to.
    await AccessRequestModel.updateOne({ _id: receipt.request_id }, { owner_email: client.admin_email });
    const refused = await decideByLink(linkOf(mail, 'approve'));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/asked for this access yourself/);
    expect((await AccessRequestModel.findById(receipt.request_id).lean())!.status).toBe('pending');
  });

  it('a brand_admin grants only a brand they administer, and cannot approve a multi_brand request', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Brand Scoped');
    await brandsFor(client.client_id, [1401, 1402]); // 1401 is the client's oldest brand
    const admin = await brandAdmin(ctx.api, ctx.admin, client.client_id, 'b-admin@brand-scoped.test', [1402], [1401]);

    const single = await requestAccess(ctx.api, client.client_id);
    const singleMail = await approvalMail(ctx.api, ctx.admin, admin.email, single.request_id);
    const approved = await decideByLink(linkOf(singleMail, 'approve'));
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ status: 'approved', brand_ids: [1402] });
    const polled = await pollUntil(ctx.api, single, (b) => b.status === 'approved');
    expect(polled.brand_ids).toEqual([1402]);

    const multi = await requestAccess(ctx.api, client.client_id, { multi_brand: true });
    const multiMail = await approvalMail(ctx.api, ctx.admin, admin.email, multi.request_id);
    const preview = await (
      await fetch(linkOf(multiMail, 'approve'), { headers: { accept: 'application/json' } })
    ).json();
    expect(preview).toMatchObject({
      can_decide: false,
      reason: "A multi-brand request needs the client's administrator",
      brand_ids: [],
    });
    const refused = await decideByLink(linkOf(multiMail, 'approve'));
    expect(refused.status).toBe(403);
    const byClientAdmin = await decideByLink(
      linkOf(await approvalMail(ctx.api, ctx.admin, client.admin_email, multi.request_id), 'approve'),
    );
    expect(await byClientAdmin.json()).toMatchObject({ status: 'approved', brand_ids: [1401, 1402] });
  });

  it('a brand_admin who administers no active brand cannot approve, but may deny', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'No Brand Of Theirs');
    await brandsFor(client.client_id, [1501]);
    const member = await brandAdmin(ctx.api, ctx.admin, client.client_id, 'member@no-brand.test', [], [1501]);
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, member.email, receipt.request_id);
    const refused = await decideByLink(linkOf(mail, 'approve'));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toBe('You administer no active brand of this client');
    const denied = await decideByLink(linkOf(mail, 'deny'));
    expect(await denied.json()).toMatchObject({ status: 'denied' });
  });
});

describe("regenerating an agent user's token", () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it('keeps only the brands the caller may grant: a brand admin of A never gets a token that acts in B', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Regenerated');
    await brandsFor(client.client_id, [1601, 1602]);
    const adminOfA = await brandAdmin(ctx.api, ctx.admin, client.client_id, 'a-admin@regenerated.test', [1601]);
    const receipt = await requestAccess(ctx.api, client.client_id, { multi_brand: true });
    await decideByLink(
      linkOf(await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id), 'approve'),
    );
    const polled = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    expect(polled.brand_ids).toEqual([1601, 1602]);
    const agentInA = (await AgentUserModel.findOne({ client_id: client.client_id, brand_id: 1601 }).lean())!;

    const session = await ctx.api.login(adminOfA.email, PASSWORD);
    const regenerated = await ctx.api.call('POST', `/api/v1/brands/1601/agent-users/${agentInA._id}/regenerate`, {
      token: session,
    });
    expect(regenerated.status).toBe(200);
    const token = regenerated.body.access_token as string;
    const status = await ctx.api.call('GET', '/api/v1/auth/pat/status', { token });
    expect(status.body.token).toMatchObject({ brand_ids: [1601], multi_brand: false });
    // The agent acts in A (the pin is simply unknown there), and not in B.
    const resolveIn = (brandId: number) =>
      ctx.api.call('GET', '/api/v1/agent/resolve-pin?pin_id=NL:NO-SUCH-PIN', {
        token,
        headers: { 'x-brand-id': String(brandId) },
      });
    expect((await resolveIn(1601)).status).toBe(404);
    expect(await resolveIn(1602)).toMatchObject({
      status: 403,
      body: { detail: 'This access token does not act for brand 1602' },
    });
    // The old token is revoked, so in B the agent user is no longer active.
    const inB = (await AgentUserModel.findOne({ client_id: client.client_id, brand_id: 1602 }).lean())!;
    expect(inB.is_active).toBe(false);
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token: polled.access_token })).status).toBe(401);
  });

  it("the client's credential triple keeps every brand", async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Regenerated By Client');
    await brandsFor(client.client_id, [1701, 1702]);
    const receipt = await requestAccess(ctx.api, client.client_id, { multi_brand: true });
    await decideByLink(
      linkOf(await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id), 'approve'),
    );
    await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    const agent = (await AgentUserModel.findOne({ client_id: client.client_id, brand_id: 1701 }).lean())!;
    const regenerated = await ctx.api.call('POST', `/api/v1/brands/1701/agent-users/${agent._id}/regenerate`, {
      token: client.triple,
    });
    const status = await ctx.api.call('GET', '/api/v1/auth/pat/status', { token: regenerated.body.access_token });
    expect(status.body.token).toMatchObject({ brand_ids: [1701, 1702], multi_brand: true });
  });
});

import { createClient, eventually, useTestApi } from '../support/harness';
import { AccessRequestModel } from '../../src/agents/access-request.model';
import { AccessTokenModel } from '../../src/agents/access-token.model';
import {
  approvalMail,
  approvedToken,
  brandsFor,
  decideByLink,
  linkOf,
  nextPoll,
  pollUntil,
  requestAccess,
  sleep,
} from './agent-helpers';
import { accessRequestWorkflowId } from '../../workflows/access-request-api';

describe('access requests: e-mail approval as a durable workflow, and polling', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it('round trip: request, the approval e-mail, the approve link, the token picked up once, a first call', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Round Trip');
    await brandsFor(client.client_id, [501, 502]);
    const receipt = await requestAccess(ctx.api, client.client_id, {
      requested_scopes: ['jobs:read', 'jobs:submit'],
      ttl_hours: 5,
      fingerprint: { hostname: 'dev-laptop', platform: 'linux' },
    });
    expect(receipt).toMatchObject({
      status: 'pending',
      poll_interval_seconds: 3,
      poll_token: expect.stringMatching(/^apt_/),
    });

    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    for (const shown of ['dev@agency.test', 'lead-finder', 'jobs:read, jobs:submit', '5 hours', 'hostname: dev-laptop'])
      expect(mail.text).toContain(shown);
    expect(mail.links.map((l: string) => new URL(l).pathname)).toEqual([
      `/api/v1/auth/pat/request/${receipt.request_id}/approve`,
      `/api/v1/auth/pat/request/${receipt.request_id}/deny`,
    ]);

    expect((await ctx.api.call('GET', receipt.poll_url)).body).toMatchObject({ status: 'pending', access_token: null });
    const decided = await decideByLink(linkOf(mail, 'approve'));
    expect(decided.status).toBe(200);
    const decision = (await decided.json()) as { token_id: string; decided_at: string };
    expect(decision).toMatchObject({ request_id: receipt.request_id, status: 'approved', brand_ids: [501] });

    const first = await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
    expect(first.access_token).toMatch(/^lpat_[0-9A-Za-z]{42}$/);
    expect(first).toMatchObject({ token_id: decision.token_id, brand_ids: [501] });
    expect((await nextPoll(ctx.api, receipt)).access_token).toBeNull(); // shown once

    const status = await ctx.api.call('GET', '/api/v1/auth/pat/status', { token: first.access_token });
    expect(status.status).toBe(200);
    expect(status.body.token).toMatchObject({
      token_id: decision.token_id,
      scopes: ['jobs:read', 'jobs:submit'],
      status: 'active',
      brand_ids: [501],
    });
    const hours = (Date.parse(status.body.token.expires_at) - Date.parse(decision.decided_at)) / 3_600_000;
    expect(hours).toBeCloseTo(5, 3);

    // Only hashes at rest: neither the token nor the request's secrets appear in what is stored.
    const stored = JSON.stringify([
      await AccessTokenModel.find({ client_id: client.client_id }).lean(),
      await AccessRequestModel.findById(receipt.request_id).lean(),
    ]);
    for (const secret of [
      first.access_token,
      receipt.poll_token,
      new URL(linkOf(mail, 'approve')).searchParams.get('approval_token'),
    ]) {
      expect(stored).not.toContain(secret);
    }
  });

  it('a multi_brand request is granted every active brand', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Multi');
    await brandsFor(client.client_id, [511, 512, 513]);
    const { polled } = await approvedToken(ctx.api, ctx.admin, client, { multi_brand: true });
    expect(polled.brand_ids).toEqual([511, 512, 513]);
  });

  it('deny, then a second decision is 409 naming the first; wrong or swapped tokens change nothing', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Deny');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const approve = new URL(linkOf(mail, 'approve'));
    const wrong = await ctx.api.call('GET', `${approve.pathname}?approval_token=aat_wrong`);
    expect(wrong.status).toBe(401);
    const swapped = await ctx.api.call(
      'GET',
      `${approve.pathname}?approval_token=${encodeURIComponent(receipt.poll_token)}`,
    );
    expect(swapped.status).toBe(401);
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe('pending');

    const denied = await decideByLink(linkOf(mail, 'deny'));
    expect(((await denied.json()) as any).status).toBe('denied');
    const again = await decideByLink(linkOf(mail, 'approve'));
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).detail).toBe('Access request already denied');
    expect(await nextPoll(ctx.api, receipt)).toMatchObject({
      status: 'denied',
      access_token: null,
      token_id: null,
    });
  });

  it('approve and deny at the same moment: exactly one wins and both answers say which', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Race');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const [a, d] = await Promise.all(['approve', 'deny'].map((v) => decideByLink(linkOf(mail, v as 'approve'))));
    const statuses = [a.status, d.status].sort();
    expect(statuses).toEqual([200, 409]);
    const bodies = [await a.json(), await d.json()] as any[];
    const winner = bodies.find((b) => b.status)!.status;
    expect(bodies.find((b) => b.detail)!.detail).toBe(`Access request already ${winner}`);
    expect((await ctx.api.call('GET', receipt.poll_url)).body.status).toBe(winner);
  });

  it('a poll within 3 s of the last one answered is refused 429 slow_down with the interval', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Slow');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const sent = Date.now();
    expect((await ctx.api.call('GET', receipt.poll_url)).status).toBe(200);
    const slowDown = { status: 429, body: { detail: 'slow_down', interval: 3 } };
    expect(await ctx.api.call('GET', receipt.poll_url)).toMatchObject(slowDown);
    // Time is the subject: 1.5 s on is past a one-second spacing and half the interval short of three (a margin
    // for a loaded machine: this poll would pass only if it reached the service more than 1.5 s late).
    await sleep(1500);
    expect(await ctx.api.call('GET', receipt.poll_url)).toMatchObject(slowDown);
    await nextPoll(ctx.api, receipt); // refused polls did not move the interval: the next is answered after it
    expect(Date.now() - sent).toBeGreaterThanOrEqual(3000); // a lower bound: a slow machine only adds to it
    const wrong = await ctx.api.call(
      'GET',
      `/api/v1/auth/pat/request/${receipt.request_id}/status?poll_token=apt_nope`,
    );
    expect(wrong.status).toBe(401);
  });

  it('request-by-email answers the same whether or not the address belongs to a client', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'By Mail');
    const body = (email: string) => ({
      email,
      project_name: 'p',
      requested_scopes: ['jobs:read'],
      name: 'Scout',
      monthly_budget_usd: 20,
    });
    const known = await ctx.api.call('POST', '/api/v1/auth/pat/request-by-email', { body: body(client.admin_email) });
    const unknown = await ctx.api.call('POST', '/api/v1/auth/pat/request-by-email', {
      body: body('nobody@nowhere.test'),
    });
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, known.body.request_id);
    expect(mail.subject).toContain('By Mail');
  });

  it('an unknown client is 404; a mistyped token fails its checksum (401)', async () => {
    const res = await ctx.api.call('POST', '/api/v1/auth/pat/request', {
      body: {
        client_id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d',
        owner_email: 'a@b.test',
        project_name: 'p',
        requested_scopes: ['jobs:read'],
      },
    });
    expect(res.status).toBe(404);
    const client = await createClient(ctx.api, ctx.admin, 'Checksum');
    const { token } = await approvedToken(ctx.api, ctx.admin, client);
    const flip = (c: string) => (c === 'a' ? 'b' : 'a');
    const mistyped = token.slice(0, 10) + flip(token[10]) + token.slice(11);
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token: mistyped })).status).toBe(401);
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token })).status).toBe(200);
  });
});

describe('an undecided access request', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0', ACCESS_REQUEST_TTL_SECONDS: '2' });

  it('expires at its deadline; a decision after it is 410', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Expiry');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    await pollUntil(ctx.api, receipt, (b) => b.status === 'expired');
    const late = await decideByLink(linkOf(mail, 'approve'));
    expect(late.status).toBe(410);
    // The workflow marked it too (not only the read-time deadline check).
    const marked = await eventually(async () => {
      const { status } = (await AccessRequestModel.findById(receipt.request_id).lean())!;
      return status === 'expired' ? status : undefined;
    });
    expect(marked).toBe('expired');
  });
});

describe('approvals racing the expiry', () => {
  // Long enough that setting up six requests on a loaded machine ends well before the earliest approval.
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0', ACCESS_REQUEST_TTL_SECONDS: '12' });

  it('for every request one of approval and expiry wins, and the answer, the poll and the workflow agree', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Approve Or Expire');
    const receipts = await Promise.all(Array.from({ length: 6 }, () => requestAccess(ctx.api, client.client_id)));
    const mails = await Promise.all(
      receipts.map((r) => approvalMail(ctx.api, ctx.admin, client.admin_email, r.request_id)),
    );
    // Approvals spread across each request's deadline, from 4 s before it to 1 s after it: on a loaded CI
    // machine (load 15 seen) an approval sent 900 ms early was decided after the deadline, so the earliest
    // is early enough that it must win and the last late enough that it must lose; those between race.
    const answers = await Promise.all(
      receipts.map(async (r, i) => {
        await sleep(Math.max(0, new Date(r.expires_at).getTime() + (i - 4) * 1000 - Date.now()));
        const res = await decideByLink(linkOf(mails[i], 'approve'));
        return res.status;
      }),
    );
    for (const [i, r] of receipts.entries()) {
      const outcome = await ctx.api.rt.engines.temporal.workflow
        .getHandle(accessRequestWorkflowId(r.request_id))
        .result();
      const polled = await pollUntil(ctx.api, r, (b) => b.status !== 'pending');
      const tokens = await AccessTokenModel.countDocuments({ client_id: client.client_id, request_id: r.request_id });
      const seen = { answer: answers[i], outcome, polled: polled.status, token: polled.access_token !== null, tokens };
      if (answers[i] === 200)
        expect(seen).toEqual({ answer: 200, outcome: 'approved', polled: 'approved', token: true, tokens: 1 });
      else expect(seen).toEqual({ answer: 410, outcome: 'expired', polled: 'expired', token: false, tokens: 0 });
    }
    // The spread reaches both sides of the deadline.
    expect(new Set(answers)).toEqual(new Set([200, 410]));
  });
});

describe('access requests per source address', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '2' });

  it('are limited to ACCESS_REQUEST_RATE_PER_HOUR an hour (429 beyond)', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Limited');
    const send = () =>
      ctx.api.call('POST', '/api/v1/auth/pat/request', {
        body: {
          client_id: client.client_id,
          owner_email: 'a@b.test',
          project_name: 'p',
          requested_scopes: ['jobs:read'],
        },
      });
    expect([(await send()).status, (await send()).status]).toEqual([200, 200]);
    const third = await send();
    expect(third.status).toBe(429);
    expect(third.body.detail).toMatch(/At most 2 access requests per hour/);
  });
});

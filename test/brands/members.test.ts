import { useTestApi } from '../support/harness';
import { approvedToken } from '../agents/agent-helpers';
import { brandCast, userOf } from './brand-helpers';

describe("brand members: a brand's owner and admins add, change and remove them", () => {
  const ctx = useTestApi();

  it('who may add a member: owner, admin, super_admin and the triple; a member 403, outside the brand 404', async () => {
    const { brandId, parties, clientA } = await brandCast(ctx.api, ctx.admin, 'mem-who');
    parties.agent = { token: (await approvedToken(ctx.api, ctx.admin, clientA)).token };
    const seen: Record<string, number> = {};
    let n = 0;
    for (const [who, party] of Object.entries(parties)) {
      const fresh = await userOf(ctx.api, ctx.admin, clientA.client_id, `fresh-${n++}-mem-who@a.test`);
      const res = await ctx.api.call('POST', `/api/v1/brands/${brandId}/members`, {
        token: party.token,
        body: { user_id: fresh.userId, role: 'admin' },
      });
      seen[who] = res.status;
      if (res.status === 201)
        expect(res.body).toMatchObject({ user_id: fresh.userId, brand_id: brandId, role: 'admin' });
    }
    expect(seen).toEqual({
      owner: 201,
      admin: 201,
      member: 403,
      outsider: 404,
      otherClient: 404,
      super_admin: 201,
      triple: 201,
      otherTriple: 404,
      agent: 403,
    });
  });

  it("adds by e-mail (any case), only users of the brand's client, once; exactly one of email and user_id", async () => {
    const { brandId, parties } = await brandCast(ctx.api, ctx.admin, 'mem-add');
    const path = `/api/v1/brands/${brandId}/members`;
    const add = (body: unknown) => ctx.api.call('POST', path, { token: parties.admin.token, body });
    const byEmail = await add({ email: 'OUTSIDER-mem-add@A.test' });
    expect([byEmail.status, byEmail.body.user_id, byEmail.body.role, byEmail.body.email]).toEqual([
      201,
      parties.outsider.userId,
      'member',
      'outsider-mem-add@a.test',
    ]);
    expect((await add({ email: 'outsider-mem-add@a.test' })).status).toBe(409);
    // A user of another client and nobody at all read alike.
    const other = await add({ email: 'other-mem-add@b.test' });
    const nobody = await add({ email: 'nobody-mem-add@a.test' });
    expect([other.status, nobody.status, other.body.detail]).toEqual([422, 422, nobody.body.detail]);
    expect((await add({})).status).toBe(422);
    expect((await add({ email: 'x@a.test', user_id: parties.outsider.userId })).status).toBe(422);
    const list = await ctx.api.call('GET', path, { token: parties.member.token });
    expect(list.body.members.map((m: { email: string }) => m.email)).toContain('outsider-mem-add@a.test');
  });

  it('changes a role and removes a member; the owner role only by an owner; never the last owner', async () => {
    const { brandId, parties } = await brandCast(ctx.api, ctx.admin, 'mem-role');
    const member = (who: string) => `/api/v1/brands/${brandId}/members/${parties[who].userId}`;
    const as = (who: string, method: string, path: string, body?: unknown) =>
      ctx.api.call(method, path, { token: parties[who].token, body });

    const promoted = await as('admin', 'PATCH', member('member'), { role: 'admin' });
    expect([promoted.status, promoted.body.role, promoted.body.email]).toEqual([
      200,
      'admin',
      'member-mem-role@a.test',
    ]);
    // An admin neither makes an owner nor touches one.
    expect((await as('admin', 'PATCH', member('member'), { role: 'owner' })).status).toBe(403);
    expect((await as('admin', 'PATCH', member('owner'), { role: 'member' })).status).toBe(403);
    expect((await as('admin', 'DELETE', member('owner'))).status).toBe(403);
    expect(
      (
        await as('admin', 'POST', `/api/v1/brands/${brandId}/members`, {
          user_id: parties.outsider.userId,
          role: 'owner',
        })
      ).status,
    ).toBe(403);
    // The last owner stays, whoever asks.
    for (const who of ['owner', 'super_admin', 'triple']) {
      const demote = await as(who, 'PATCH', member('owner'), { role: 'admin' });
      expect([who, demote.status, demote.body.detail]).toEqual([
        who,
        409,
        "The brand's last owner cannot be demoted or removed",
      ]);
      expect((await as(who, 'DELETE', member('owner'))).status).toBe(409);
    }
    // With a second owner the first may step down.
    expect((await as('owner', 'PATCH', member('admin'), { role: 'owner' })).body.role).toBe('owner');
    expect((await as('owner', 'PATCH', member('owner'), { role: 'member' })).body.role).toBe('member');

    const removed = await as('super_admin', 'DELETE', member('member'));
    expect(removed.body).toEqual({ user_id: parties.member.userId, brand_id: brandId, removed: true });
    expect((await as('super_admin', 'DELETE', member('member'))).status).toBe(404);
    expect((await as('owner', 'GET', `/api/v1/brands/${brandId}`)).status).toBe(200);
    // The removed member no longer sees the brand.
    expect((await as('member', 'GET', `/api/v1/brands/${brandId}`)).status).toBe(404);
    // Another client's user is not a member to change: 404.
    expect((await as('triple', 'PATCH', member('otherClient'), { role: 'admin' })).status).toBe(404);
  });
});

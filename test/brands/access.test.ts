import { createClient, useTestApi } from '../support/harness';
import { BrandMemberModel } from '../../src/brands/brand.model';
import { approvedToken } from '../agents/agent-helpers';
import { addMember, brandCast, userOf } from './brand-helpers';

const ONE_PX_PNG =
  'data:image/png;base64,' +
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Expected status per party: members read, admins and owners change; outside the brand is 404. */
/** An agent token granted the brand still calls none of these operations: they declare no scope (x-scopes). */
const READ = {
  owner: 200,
  admin: 200,
  member: 200,
  outsider: 404,
  otherClient: 404,
  super_admin: 200,
  triple: 200,
  otherTriple: 404,
  agent: 403,
};
const ADMIN = { ...READ, member: 403 };

const operations: {
  name: string;
  method: string;
  path: (id: number) => string;
  body?: unknown;
  expect: Record<string, number>;
}[] = [
  { name: 'getBrand', method: 'GET', path: (id) => `/api/v1/brands/${id}`, expect: READ },
  { name: 'listBrandMembers', method: 'GET', path: (id) => `/api/v1/brands/${id}/members`, expect: READ },
  {
    name: 'updateBrand',
    method: 'PATCH',
    path: (id) => `/api/v1/brands/${id}`,
    body: { billing_email: 'pay@a.test' },
    expect: ADMIN,
  },
  { name: 'getBrandSettings', method: 'GET', path: (id) => `/api/v1/brands/${id}/settings`, expect: ADMIN },
  {
    name: 'updateBrandSettings',
    method: 'PATCH',
    path: (id) => `/api/v1/brands/${id}/settings`,
    body: { brand_tone: 'Calm' },
    expect: ADMIN,
  },
  { name: 'getBrandInformation', method: 'GET', path: (id) => `/api/v1/brands/${id}/information`, expect: ADMIN },
  {
    name: 'updateBrandInformation',
    method: 'PATCH',
    path: (id) => `/api/v1/brands/${id}/information`,
    body: { city: 'Utrecht' },
    expect: ADMIN,
  },
  {
    name: 'uploadBrandLogo',
    method: 'POST',
    path: (id) => `/api/v1/brands/${id}/logo`,
    body: { file: ONE_PX_PNG },
    expect: ADMIN,
  },
  { name: 'deleteBrandLogo', method: 'DELETE', path: (id) => `/api/v1/brands/${id}/logo`, expect: ADMIN },
];

describe('brand access: the role matrix over every operation', () => {
  const ctx = useTestApi();

  it('members read, admins and owners change, everybody else outside the brand gets 404', async () => {
    const { brandId, parties, clientA } = await brandCast(ctx.api, ctx.admin, 'matrix');
    const granted = await approvedToken(ctx.api, ctx.admin, clientA);
    expect(granted.polled.brand_ids).toEqual([brandId]);
    parties.agent = { token: granted.token };
    const seen: Record<string, Record<string, number>> = {};
    const wanted: Record<string, Record<string, number>> = {};
    for (const op of operations) {
      seen[op.name] = {};
      wanted[op.name] = op.expect;
      for (const [who, party] of Object.entries(parties)) {
        const res = await ctx.api.call(op.method, op.path(brandId), { token: party.token, body: op.body });
        seen[op.name][who] = res.status;
        if (res.status >= 400) expect(typeof res.body.detail).toBe('string');
      }
    }
    expect(seen).toEqual(wanted);
  });

  it('every party may create a brand of its own client; only a super_admin adds members', async () => {
    const { brandId, parties, clientA } = await brandCast(ctx.api, ctx.admin, 'creators');
    const created: Record<string, number> = {};
    const added: Record<string, number> = {};
    for (const [who, party] of Object.entries(parties)) {
      const headers: Record<string, string> =
        who === 'super_admin' ? { 'x-selected-client-id': clientA.client_id } : {};
      const res = await ctx.api.call('POST', '/api/v1/brands', {
        token: party.token,
        headers,
        body: { brand_name: `By ${who}`, slug: `by-${who.toLowerCase().replace('_', '-')}` },
      });
      created[who] = res.status;
      const add = await ctx.api.call('POST', `/api/v1/dashboard/users/${parties.outsider.userId}/brands`, {
        token: party.token,
        body: { brand_id: brandId },
      });
      added[who] = add.status;
      if (add.status === 201)
        expect(add.body).toMatchObject({ user_id: parties.outsider.userId, brand_id: brandId, role: 'member' });
    }
    expect(created).toEqual(Object.fromEntries(Object.keys(parties).map((who) => [who, 201])));
    expect(added).toEqual({ ...Object.fromEntries(Object.keys(parties).map((who) => [who, 403])), super_admin: 201 });
    const mine = await ctx.api.call('GET', '/api/v1/brands', { token: parties.member.token });
    expect(mine.body.brands.find((b: { slug: string }) => b.slug === 'by-member')?.role).toBe('owner');
  });

  it('brand and member lists are paginated with page and page_size', async () => {
    const { brandId, parties } = await brandCast(ctx.api, ctx.admin, 'pages');
    const more = [];
    for (const slug of ['pages-b', 'pages-c']) {
      more.push(
        (await ctx.api.call('POST', '/api/v1/brands', { token: parties.owner.token, body: { brand_name: slug, slug } }))
          .body.brand_id,
      );
    }
    for (const id of more) await addMember(ctx.api, ctx.admin, parties.member.userId!, id, 'member');
    const page = async (path: string, n: number) =>
      (await ctx.api.call('GET', `${path}?page=${n}&page_size=2`, { token: parties.member.token })).body;
    const first = await page('/api/v1/brands', 1);
    const second = await page('/api/v1/brands', 2);
    expect([first.total, first.page, first.page_size, second.page]).toEqual([3, 1, 2, 2]);
    expect([...first.brands, ...second.brands].map((b: { brand_id: number }) => b.brand_id)).toEqual([
      brandId,
      ...more,
    ]);
    const members = [
      await page(`/api/v1/brands/${brandId}/members`, 1),
      await page(`/api/v1/brands/${brandId}/members`, 2),
    ];
    expect(members.map((m) => [m.total, m.members.length])).toEqual([
      [3, 2],
      [3, 1],
    ]);
    expect(members[1].members[0].email).toBe('member-pages@a.test');
  });

  it('a user moved to another client loses its memberships, also after moving back', async () => {
    const { brandId, parties, clientA, clientB } = await brandCast(ctx.api, ctx.admin, 'movers');
    const patchUser = (client_id: string) =>
      ctx.api.call('PATCH', `/api/v1/dashboard/users/${parties.admin.userId}`, {
        token: ctx.admin,
        body: { client_id },
      });
    const before = await patchUser(clientA.client_id); // unchanged client: memberships stay and are shown
    expect(before.body.brands).toEqual([{ brand_id: brandId, role: 'admin' }]);
    const moved = await patchUser(clientB.client_id);
    expect([moved.status, moved.body.brands]).toEqual([200, []]);
    expect((await patchUser(clientA.client_id)).body.brands).toEqual([]);
    const members = await ctx.api.call('GET', `/api/v1/brands/${brandId}/members`, { token: parties.owner.token });
    expect(members.body.members.map((m: { email: string }) => m.email)).toEqual([
      'owner-movers@a.test',
      'member-movers@a.test',
    ]);
    const token = await ctx.api.login('admin-movers@a.test', 'party-password-123');
    expect((await ctx.api.call('GET', `/api/v1/brands/${brandId}`, { token })).status).toBe(404);
  });

  it('a brand whose owner cannot be recorded is undone, so the creator can retry with the same slug', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Undo');
    const creator = await userOf(ctx.api, ctx.admin, client.client_id, 'creator@undo.test');
    const create = () =>
      ctx.api.call('POST', '/api/v1/brands', { token: creator.token, body: { brand_name: 'Undo', slug: 'undo' } });
    const dbDown = Object.assign(new Error('connection 7 to 127.0.0.1 closed'), { name: 'MongoNetworkError' });
    const spy = jest.spyOn(BrandMemberModel, 'create').mockRejectedValueOnce(dbDown as never);
    try {
      expect((await create()).status).toBe(503);
    } finally {
      spy.mockRestore();
    }
    const retried = await create();
    expect([retried.status, retried.body.role]).toEqual([201, 'owner']);
  });

  it('an unknown brand is 404 for everybody, a super_admin too', async () => {
    const res = await ctx.api.call('GET', '/api/v1/brands/987654', { token: ctx.admin });
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe('Brand not found');
  });

  it("lists each caller's brands with its role; a super_admin sees all as admin", async () => {
    const { brandId, parties } = await brandCast(ctx.api, ctx.admin, 'list');
    const roleIn = async (token: string) => {
      const res = await ctx.api.call('GET', '/api/v1/brands?page_size=100', { token });
      expect(res.status).toBe(200);
      return res.body.brands.find((b: { brand_id: number }) => b.brand_id === brandId)?.role ?? null;
    };
    expect(await roleIn(parties.owner.token)).toBe('owner');
    expect(await roleIn(parties.admin.token)).toBe('admin');
    expect(await roleIn(parties.member.token)).toBe('member');
    expect(await roleIn(parties.outsider.token)).toBeNull();
    expect(await roleIn(parties.otherClient.token)).toBeNull();
    expect(await roleIn(parties.super_admin.token)).toBe('admin');
    expect(await roleIn(parties.triple.token)).toBe('admin');
    expect(await roleIn(parties.otherTriple.token)).toBeNull();
  });

  it('members are listed with e-mail, role and when they were added; adding is super_admin only', async () => {
    const { brandId, parties, clientA } = await brandCast(ctx.api, ctx.admin, 'members');
    const res = await ctx.api.call('GET', `/api/v1/brands/${brandId}/members`, { token: parties.member.token });
    expect(res.body.total).toBe(3);
    expect(res.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['owner-members@a.test', 'owner'],
      ['admin-members@a.test', 'admin'],
      ['member-members@a.test', 'member'],
    ]);
    expect(Date.parse(res.body.members[0].created_at)).not.toBeNaN();

    const again = await ctx.api.call('POST', `/api/v1/dashboard/users/${parties.member.userId}/brands`, {
      token: ctx.admin,
      body: { brand_id: brandId },
    });
    expect(again.status).toBe(409);
    const byOwner = await ctx.api.call('POST', `/api/v1/dashboard/users/${parties.outsider.userId}/brands`, {
      token: parties.owner.token,
      body: { brand_id: brandId },
    });
    expect(byOwner.status).toBe(403);
    const unknownUser = await ctx.api.call(
      'POST',
      '/api/v1/dashboard/users/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d/brands',
      { token: ctx.admin, body: { brand_id: brandId } },
    );
    expect(unknownUser.status).toBe(404);
    const unknownBrand = await ctx.api.call('POST', `/api/v1/dashboard/users/${parties.outsider.userId}/brands`, {
      token: ctx.admin,
      body: { brand_id: 999999 },
    });
    expect(unknownBrand.status).toBe(404);
    const otherClient = await ctx.api.call('POST', `/api/v1/dashboard/users/${parties.otherClient.userId}/brands`, {
      token: ctx.admin,
      body: { brand_id: brandId },
    });
    expect(otherClient.status).toBe(422);

    const users = await ctx.api.call('GET', '/api/v1/dashboard/users?search=owner-members', { token: ctx.admin });
    expect(users.status).toBe(200);
    const owner = users.body.users.find((u: { email: string }) => u.email === 'owner-members@a.test');
    expect(owner.brands).toEqual([{ brand_id: brandId, role: 'owner' }]);
    expect(clientA.client_id).toBeTruthy();
  });
});

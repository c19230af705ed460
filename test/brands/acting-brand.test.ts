import type { Request } from 'express';
import { actingBrand as actingBrandWith } from '../../src/brands/acting-brand';
import { BrandModel } from '../../src/brands/brand.model';
import type { Caller } from '../../src/lib/tenancy';
import { createClient, useTestApi } from '../support/harness';
import { startSecondApi } from '../support/second-api';

/** The part of a request actingBrand reads: the authenticated caller and the X-Brand-Id header. */
const requestOf = (caller: Partial<Caller>, brandHeader?: string) =>
  ({
    caller: { permissions: [], scopes: [], brandIds: [], userId: null, email: null, ...caller },
    get: (h: string) => (h.toLowerCase() === 'x-brand-id' ? brandHeader : undefined),
  }) as unknown as Request;

const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: { status: number }) => err.status,
  );

describe('the brand an agent operation acts for', () => {
  const ctx = useTestApi();
  const actingBrand = (req: Request) => actingBrandWith(req, ctx.api.rt.modules.brands.service.lookup);
  let clientId: string;
  beforeAll(async () => {
    clientId = (await createClient(ctx.api, ctx.admin, 'Acting')).client_id;
    await BrandModel.create([
      { _id: 801, client_id: clientId, brand_name: 'A', slug: 'a' },
      { _id: 802, client_id: clientId, brand_name: 'B', slug: 'b' },
      { _id: 803, client_id: clientId, brand_name: 'C', slug: 'c', is_active: false },
    ]);
  });
  const agent = (brandIds: number[]) => ({
    kind: 'agent' as const,
    role: 'client_user' as const,
    clientId,
    brandIds,
    tokenId: 't',
  });

  it("is a single-brand token's only brand, or the granted brand X-Brand-Id names", async () => {
    expect((await actingBrand(requestOf(agent([801])))).brand._id).toBe(801);
    expect((await actingBrand(requestOf(agent([801, 802]), '802'))).brand._id).toBe(802);
  });

  it('refuses what the caller may not act for', async () => {
    expect(await statusOf(actingBrand(requestOf(agent([801, 802]))))).toBe(422); // which one?
    expect(await statusOf(actingBrand(requestOf(agent([801]), '802')))).toBe(403); // not granted
    expect(await statusOf(actingBrand(requestOf(agent([]))))).toBe(403);
    expect(await statusOf(actingBrand(requestOf(agent([803]))))).toBe(403); // inactive brand
    const triple = { kind: 'client' as const, role: 'client_user' as const, clientId };
    expect(await statusOf(actingBrand(requestOf(triple)))).toBe(422);
    expect((await actingBrand(requestOf(triple, '801'))).role).toBe('admin');
    const stranger = {
      kind: 'client' as const,
      role: 'client_user' as const,
      clientId: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d',
    };
    expect(await statusOf(actingBrand(requestOf(stranger, '801')))).toBe(404);
  });

  it('sees a brand deactivated at once, on this process and on another with the brand cached', async () => {
    const { triple } = await createClient(ctx.api, ctx.admin, 'Cached Brand');
    const brandId = (
      await ctx.api.call('POST', '/api/v1/brands', {
        token: triple,
        body: { brand_name: 'Cached', slug: 'cached-brand' },
      })
    ).body.brand_id;
    const second = await startSecondApi(ctx.api);
    try {
      const resolveOnBoth = () =>
        Promise.all(
          [ctx.api.url, second.url].map((url) =>
            fetch(`${url}/api/v1/agent/resolve-pin?pin_id=NL:NOT-CLAIMED`, {
              headers: { authorization: `Bearer ${triple}`, 'x-brand-id': String(brandId) },
            }).then((r) => r.status),
          ),
        );
      expect(await resolveOnBoth()).toEqual([404, 404]); // acting for the brand: no such pin
      expect(await resolveOnBoth()).toEqual([404, 404]); // now from both caches
      const patched = await ctx.api.call('PATCH', `/api/v1/brands/${brandId}`, {
        token: triple,
        body: { is_active: false },
      });
      expect(patched.status).toBe(200);
      expect(await resolveOnBoth()).toEqual([403, 403]);
    } finally {
      second.stop();
    }
  });
});

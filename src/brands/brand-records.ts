/** Which brands a caller sees, and a new brand (its creator, a user of its client, becomes its owner). */
import type Redis from 'ioredis';
import type { JsonAnswer, JsonBody, Schemas } from '../lib/contract-types';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { tenantQuery, type Caller } from '../lib/tenancy';
import { assertSelectedClient } from '../clients/selected-client';
import type { BrandCache } from './brand-cache';
import { insertWithNewBrandId } from './brand-ids';
import { BrandMemberModel, BrandModel, memberId, type BrandDoc, type BrandRole, type MemberDoc } from './brand.model';
import { toBrand, type LogoUrl } from './brand.views';

/**
 * A super_admin's (in the tenant it selected, or every client's) and the client's triple's: all the client's
 * brands; a user's: the brands they are a member of, with their role in each.
 */
export async function listBrands(
  logoUrl: LogoUrl,
  caller: Caller,
  tenant: string | null,
  page: Page,
): Promise<JsonAnswer<'listBrands', 200>> {
  if (caller.role === 'super_admin' || caller.kind === 'client') {
    const { filter, options } = tenantQuery(tenant);
    const { docs, total } = await findPage<BrandDoc>(BrandModel, { filter, sort: { _id: 1 }, options }, page);
    return pageEnvelope(
      'brands',
      docs.map((d) => toBrand(d, 'admin', logoUrl)),
      total,
      page,
    );
  }
  if (!caller.userId || !caller.clientId) return pageEnvelope('brands', [], 0, page);
  const memberships = await BrandMemberModel.find({ client_id: caller.clientId, user_id: caller.userId })
    .sort({ brand_id: 1 })
    .lean<MemberDoc[]>();
  const slice = memberships.slice(page.skip, page.skip + page.page_size);
  const docs = await BrandModel.find({
    client_id: caller.clientId,
    _id: { $in: slice.map((m) => m.brand_id) },
  }).lean<BrandDoc[]>();
  const byId = new Map(docs.map((d) => [d._id, d]));
  const brands = slice
    .filter((m) => byId.has(m.brand_id))
    .map((m) => toBrand(byId.get(m.brand_id)!, m.role as BrandRole, logoUrl));
  return pageEnvelope('brands', brands, memberships.length, page);
}

export async function createBrand(
  deps: { redis: Redis; cache: BrandCache; logoUrl: LogoUrl },
  caller: Caller,
  clientId: string,
  input: JsonBody<'createBrand'>,
): Promise<Schemas['Brand']> {
  await assertSelectedClient(clientId, caller.role === 'super_admin');
  try {
    const doc = await insertWithNewBrandId(deps.redis, async (id) => {
      const created = await BrandModel.create({
        _id: id,
        client_id: clientId,
        brand_name: input.brand_name,
        slug: input.slug,
      });
      return created.toObject() as BrandDoc;
    });
    const ownerIsMember = caller.kind === 'user' && caller.userId && caller.clientId === clientId;
    if (ownerIsMember) {
      try {
        await BrandMemberModel.create({
          _id: memberId(doc._id, caller.userId!),
          client_id: clientId,
          brand_id: doc._id,
          user_id: caller.userId!,
          role: 'owner',
        });
      } catch (err) {
        // A brand without its owner would hold the slug while its creator cannot see it: undo, so a retry works.
        await BrandModel.deleteOne({ _id: doc._id, client_id: clientId })
          .then(deps.cache.invalidate)
          .catch(() => undefined);
        throw err;
      }
    }
    return toBrand(doc, ownerIsMember ? 'owner' : 'admin', deps.logoUrl);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw AppError.conflict(`A brand with slug ${input.slug} already exists`);
    throw err;
  }
}

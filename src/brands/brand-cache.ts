import type Redis from 'ioredis';
import { createTokenCache } from '../auth/token-cache';
import { BrandModel, type BrandDoc } from './brand.model';

/** How brand access finds a brand: `clientId` null means any client's (a super_admin). */
export type BrandLookup = (brandId: number, clientId: string | null) => Promise<BrandDoc | null>;

export const brandFromStore: BrandLookup = (brandId, clientId) =>
  (clientId === null
    ? BrandModel.findOne({ _id: brandId }).setOptions({ allTenants: true })
    : BrandModel.findOne({ _id: brandId, client_id: clientId })
  )
    .lean<BrandDoc>()
    .exec();

const NEVER = new Date(8.64e15);

/**
 * Brands by id, cached per process for the agent operations (every relay call and pin operation acts for
 * a brand). The credential cache's rule keeps it exact across processes: every brand write is invalidated on
 * every process before it is acknowledged. Entries are shared: callers do not mutate them.
 */
export function createBrandCache(redis: Redis) {
  const cache = createTokenCache<BrandDoc>(redis, { epochKey: 'brands:epoch', ttlMs: 60_000, name: 'brands' });
  const lookup: BrandLookup = (brandId, clientId) =>
    cache.lookup(`${clientId ?? '*'}:${brandId}`, async () => {
      const doc = await brandFromStore(brandId, clientId);
      return doc ? { value: doc, expiresAt: NEVER } : null;
    });
  return { lookup, invalidate: cache.invalidate };
}

export type BrandCache = ReturnType<typeof createBrandCache>;

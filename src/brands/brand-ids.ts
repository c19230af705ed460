import type Redis from 'ioredis';
import { insertWithNewIntegerId } from '../lib/integer-ids';
import { BrandModel } from './brand.model';

/** Inserts a brand under a fresh integer id (one Redis counter; see src/lib/integer-ids.ts). */
export function insertWithNewBrandId<T>(redis: Redis, insert: (brandId: number) => Promise<T>): Promise<T> {
  return insertWithNewIntegerId(redis, 'brand-id', BrandModel, insert);
}

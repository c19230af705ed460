/**
 * Read-modify-write steps on one brand take turns (FerretDB does not apply concurrent updates of a document
 * atomically), and every write invalidates the agent operations' brand cache.
 */
import { AppError } from '../lib/errors';
import type { RunLocked } from '../lib/locks';
import type { BrandCache } from './brand-cache';
import { BrandModel, type BrandDoc } from './brand.model';

export interface BrandWriteDeps {
  lock: RunLocked;
  /** The agent operations' brand cache: every write invalidates it. */
  cache: BrandCache;
}

/** Runs `work` in the brand's turn. */
export const inBrandTurn = <T>(deps: Pick<BrandWriteDeps, 'lock'>, brandId: number, work: () => Promise<T>) =>
  deps.lock(`brand:${brandId}`, work);

/** The brand as stored now, or 404. */
export async function reloadBrand(brand: BrandDoc): Promise<BrandDoc> {
  const doc = await BrandModel.findOne({ _id: brand._id, client_id: brand.client_id }).lean<BrandDoc>();
  if (!doc) throw AppError.notFound('Brand not found');
  return doc;
}

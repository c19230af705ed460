import type { AnyRequest } from '../lib/http/operations';
import { AppError } from '../lib/errors';
import { callerOf } from '../lib/tenancy';
import { brandAccess, type BrandAccess } from './brand-access';
import type { BrandLookup } from './brand-cache';

export const BRAND_HEADER = 'x-brand-id';

const brandHeaderMissing = (why: string) =>
  AppError.invalid(`X-Brand-Id is required ${why}`, [{ location: 'header', field: 'X-Brand-Id', message: 'required' }]);

/**
 * The brand an agent operation acts for (docs/decisions.md §6): an agent token's only brand, or for a
 * multi-brand token the one named by X-Brand-Id, which must be one of its brands (403 otherwise);
 * a dashboard caller or credential triple names it with X-Brand-Id and must belong to it (404
 * otherwise, as everywhere). An inactive brand acts for nobody (403). `find` is the services' brand cache.
 */
export async function actingBrand(req: AnyRequest, find: BrandLookup): Promise<BrandAccess> {
  const caller = callerOf(req);
  const named = req.get(BRAND_HEADER);
  let brandId: number;
  if (caller.kind === 'agent') {
    if (named === undefined) {
      if (caller.brandIds.length === 0) throw AppError.forbidden('This access token acts for no brand');
      if (caller.brandIds.length > 1) throw brandHeaderMissing('for a token granted several brands');
      brandId = caller.brandIds[0];
    } else {
      brandId = Number(named);
      if (!caller.brandIds.includes(brandId))
        throw AppError.forbidden(`This access token does not act for brand ${named}`);
    }
  } else {
    if (named === undefined) throw brandHeaderMissing('to name the brand to act for');
    brandId = Number(named);
  }
  const access = await brandAccess(caller, brandId, 'member', find);
  if (!access.brand.is_active) throw AppError.forbidden('This brand is not active');
  return access;
}

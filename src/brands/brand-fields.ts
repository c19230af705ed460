/** A brand's fields, its settings and its information, read and changed (by its admins, in the brand's turn). */
import type { JsonBody, Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { Caller } from '../lib/tenancy';
import { countryExists } from '../locations/dataset';
import { brandAccess } from './brand-access';
import { BrandModel, type BrandDoc } from './brand.model';
import { toBrand, toInformation, toSettings, type LogoUrl } from './brand.views';
import { inBrandTurn, reloadBrand, type BrandWriteDeps } from './brand-turns';

type FieldDeps = BrandWriteDeps & { logoUrl: LogoUrl };

async function setFields(deps: BrandWriteDeps, brand: BrandDoc, set: Record<string, unknown>): Promise<BrandDoc> {
  await BrandModel.updateOne({ _id: brand._id, client_id: brand.client_id }, { $set: set });
  await deps.cache.invalidate();
  return reloadBrand(brand);
}

/** The patch's fields inside one of the brand's sub-documents (`settings.x`), so the others stay as they are. */
const prefixed = (prefix: string, patch: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(patch).map(([k, v]) => [`${prefix}.${k}`, v]));

export async function getBrand(logoUrl: LogoUrl, caller: Caller, brandId: number): Promise<Schemas['Brand']> {
  const { brand, role } = await brandAccess(caller, brandId, 'member');
  return toBrand(brand, role, logoUrl);
}

export async function updateBrand(
  deps: FieldDeps,
  caller: Caller,
  brandId: number,
  patch: JsonBody<'updateBrand'>,
): Promise<Schemas['Brand']> {
  const { brand, role } = await brandAccess(caller, brandId, 'admin');
  return toBrand(await inBrandTurn(deps, brandId, () => setFields(deps, brand, patch)), role, deps.logoUrl);
}

export async function brandSettings(logoUrl: LogoUrl, caller: Caller, brandId: number) {
  return toSettings((await brandAccess(caller, brandId, 'admin')).brand, logoUrl);
}

export async function updateBrandSettings(
  deps: FieldDeps,
  caller: Caller,
  brandId: number,
  patch: JsonBody<'updateBrandSettings'>,
): Promise<Schemas['BrandSettings']> {
  const { brand } = await brandAccess(caller, brandId, 'admin');
  return toSettings(
    await inBrandTurn(deps, brandId, () => setFields(deps, brand, prefixed('settings', patch))),
    deps.logoUrl,
  );
}

export async function brandInformation(caller: Caller, brandId: number) {
  return toInformation((await brandAccess(caller, brandId, 'admin')).brand);
}

export async function updateBrandInformation(
  deps: BrandWriteDeps,
  caller: Caller,
  brandId: number,
  patch: JsonBody<'updateBrandInformation'>,
): Promise<Schemas['BrandInformation']> {
  const { brand } = await brandAccess(caller, brandId, 'admin');
  // The contract's pattern admits any two capitals; only an assigned ISO 3166-1 code is a country.
  if (typeof patch.country === 'string' && !countryExists(patch.country)) {
    throw AppError.invalid(`Unknown country ${patch.country}`, [
      { location: 'body', field: 'country', message: 'not an ISO 3166-1 alpha-2 country code' },
    ]);
  }
  return toInformation(await inBrandTurn(deps, brandId, () => setFields(deps, brand, prefixed('information', patch))));
}

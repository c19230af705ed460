/**
 * A brand's logo: processed into a square WebP, stored in the media storage under its content's hash (so its URL
 * changes whenever the image does), and served publicly from there.
 */
import type { JsonBody, Schemas } from '../lib/contract-types';
import type { Caller } from '../lib/tenancy';
import type { MediaStorage } from '../media/storage';
import { decodeImage, processImage } from '../media/image';
import { brandAccess } from './brand-access';
import { BrandModel, type BrandDoc } from './brand.model';
import type { LogoUrl } from './brand.views';
import { inBrandTurn, reloadBrand, type BrandWriteDeps } from './brand-turns';

export const LOGO_PATH = '/api/v1/brand-logos';
/** A logo is center-cropped to a square of at most this side. */
export const LOGO_MAX_PX = 256;
const logoKey = (brandId: number, sha256: string) => `brand-logos/${brandId}/${sha256}.webp`;

type LogoDeps = BrandWriteDeps & { storage: MediaStorage; logoUrl: LogoUrl };

/** Where the logos stored under these keys are served, for a service reached at publicBaseUrl. */
export const logoUrlFor =
  (publicBaseUrl: string): LogoUrl =>
  (key) =>
    key ? `${publicBaseUrl}${LOGO_PATH}/${key.slice('brand-logos/'.length)}` : null;

/** Drops a just-written object the brand does not point to after a failed write (an orphan otherwise). */
async function dropIfUnrecorded(storage: MediaStorage, brand: BrandDoc, key: string): Promise<void> {
  try {
    const now = await BrandModel.findOne({ _id: brand._id, client_id: brand.client_id }, { logo_key: 1 }).lean<{
      logo_key: string | null;
    }>();
    if (now && now.logo_key !== key) await storage.delete(key);
  } catch {
    // Unknown whether the write landed: keeping a possible orphan beats a dangling logo_url.
  }
}

async function storeLogo(deps: LogoDeps, brand: BrandDoc, key: string | null): Promise<BrandDoc> {
  try {
    await BrandModel.updateOne({ _id: brand._id, client_id: brand.client_id }, { $set: { logo_key: key } });
    await deps.cache.invalidate();
  } catch (err) {
    if (key && key !== brand.logo_key) await dropIfUnrecorded(deps.storage, brand, key);
    throw err;
  }
  // The old object goes only after the brand points elsewhere, so a reader never sees a dangling URL.
  if (brand.logo_key && brand.logo_key !== key) await deps.storage.delete(brand.logo_key);
  return reloadBrand(brand);
}

export async function uploadLogo(
  deps: LogoDeps,
  caller: Caller,
  brandId: number,
  file: JsonBody<'uploadBrandLogo'>['file'],
): Promise<Schemas['BrandLogo']> {
  await brandAccess(caller, brandId, 'admin');
  const logo = await processImage(decodeImage(file, 'logo'), 'logo', { square: LOGO_MAX_PX });
  const key = logoKey(brandId, logo.sha256);
  const doc = await inBrandTurn(deps, brandId, async () => {
    const { brand } = await brandAccess(caller, brandId, 'admin'); // the logo as it is now, inside the turn
    await deps.storage.put(key, logo.webp, 'image/webp');
    return storeLogo(deps, brand, key);
  });
  return { brand_id: brandId, logo_url: deps.logoUrl(doc.logo_key), updated_at: doc.updated_at.toISOString() };
}

export async function deleteLogo(deps: LogoDeps, caller: Caller, brandId: number): Promise<Schemas['BrandLogo']> {
  await brandAccess(caller, brandId, 'admin');
  const doc = await inBrandTurn(deps, brandId, async () =>
    storeLogo(deps, (await brandAccess(caller, brandId, 'admin')).brand, null),
  );
  return { brand_id: brandId, logo_url: null, updated_at: doc.updated_at.toISOString() };
}

/** The stored logo object for a public URL, or null. Keys are content-addressed, so the hash is the ETag. */
export async function logoObject(storage: MediaStorage, brandId: number, file: string) {
  const key = `brand-logos/${brandId}/${file}`;
  const head = await storage.head(key);
  return head ? { key, head, stream: () => storage.get(key) } : null;
}

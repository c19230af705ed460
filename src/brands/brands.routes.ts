import { pipeline } from 'node:stream/promises';
import { AppError } from '../lib/errors';
import { notModified } from '../lib/http/conditional-get';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant, tenantScope } from '../lib/tenancy';
import type { BrandRole } from './brand.model';
import type { BrandsService } from './brands.service';

const brandIdOf = (req: Parameters<OperationHandlers[string]>[0]) => Number(pathParam(req, 'brand_id'));
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Brands and their settings, information, logo and members, and the public logo images. */
export function brandsRoutes(deps: { brands: BrandsService }): OperationHandlers {
  const { brands } = deps;
  return {
    async listBrands(req, res) {
      res.json(await brands.list(callerOf(req), tenantScope(req), pageOf(req)));
    },
    async createBrand(req, res) {
      res.status(201).json(await brands.create(callerOf(req), requireTenant(req), req.body));
    },
    async getBrand(req, res) {
      res.json(await brands.get(callerOf(req), brandIdOf(req)));
    },
    async updateBrand(req, res) {
      res.json(await brands.update(callerOf(req), brandIdOf(req), req.body));
    },
    async getBrandSettings(req, res) {
      res.json(await brands.settings(callerOf(req), brandIdOf(req)));
    },
    async updateBrandSettings(req, res) {
      res.json(await brands.updateSettings(callerOf(req), brandIdOf(req), req.body));
    },
    async getBrandInformation(req, res) {
      res.json(await brands.information(callerOf(req), brandIdOf(req)));
    },
    async updateBrandInformation(req, res) {
      res.json(await brands.updateInformation(callerOf(req), brandIdOf(req), req.body));
    },
    async uploadBrandLogo(req, res) {
      res.json(await brands.uploadLogo(callerOf(req), brandIdOf(req), req.body.file));
    },
    async deleteBrandLogo(req, res) {
      res.json(await brands.deleteLogo(callerOf(req), brandIdOf(req)));
    },
    async listBrandMembers(req, res) {
      res.json(await brands.members(callerOf(req), brandIdOf(req), pageOf(req)));
    },
    async addUserToBrand(req, res) {
      const userId = pathParam(req, 'user_id');
      if (req.body.user_id !== undefined && req.body.user_id !== userId) {
        throw AppError.invalid('user_id in the body differs from the path', [
          { location: 'body', field: 'user_id', message: 'must equal the path parameter' },
        ]);
      }
      res.status(201).json(await brands.addMember(userId, req.body.brand_id, (req.body.role ?? 'member') as BrandRole));
    },
    /** Public: logos are shown on sites and in e-mails. The key holds the image's hash, so it never changes. */
    async getBrandLogoImage(req, res) {
      const file = pathParam(req, 'logo_file');
      const found = await brands.logoObject(brandIdOf(req), file);
      if (!found) throw AppError.notFound('Logo not found');
      const etag = `"${file.replace(/\.webp$/, '')}"`;
      res.set({ ETag: etag, 'Cache-Control': IMMUTABLE, 'Last-Modified': found.head.lastModified.toUTCString() });
      // 304 only for a matching If-None-Match (the content's hash, or `*`), as the contract says: If-Modified-Since
      // alone is not consulted.
      if (req.get('if-none-match') && notModified(req, res)) return void res.status(304).end();
      const stream = await found.stream();
      if (!stream) throw AppError.notFound('Logo not found');
      res.status(200).set({ 'Content-Type': 'image/webp', 'Content-Length': String(found.head.size) });
      await pipeline(stream, res);
    },
  };
}

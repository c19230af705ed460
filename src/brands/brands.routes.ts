import { pipeline } from 'node:stream/promises';
import { AppError } from '../lib/errors';
import { notModified } from '../lib/http/conditional-get';
import { rawResponse, type OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant, tenantScope } from '../lib/tenancy';
import type { BrandsService } from './brands.service';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Brands and their settings, information, logo and members, and the public logo images. */
export function brandsRoutes(deps: { brands: BrandsService }): OperationHandlers {
  const { brands } = deps;
  return {
    async listBrands(req, res) {
      res.json(await brands.list(callerOf(req), tenantScope(req), pageOf(req.query)));
    },
    async createBrand(req, res) {
      res.status(201).json(await brands.create(callerOf(req), requireTenant(req), req.body));
    },
    async getBrand(req, res) {
      res.json(await brands.get(callerOf(req), req.params.brand_id));
    },
    async updateBrand(req, res) {
      res.json(await brands.update(callerOf(req), req.params.brand_id, req.body));
    },
    async getBrandSettings(req, res) {
      res.json(await brands.settings(callerOf(req), req.params.brand_id));
    },
    async updateBrandSettings(req, res) {
      res.json(await brands.updateSettings(callerOf(req), req.params.brand_id, req.body));
    },
    async getBrandInformation(req, res) {
      res.json(await brands.information(callerOf(req), req.params.brand_id));
    },
    async updateBrandInformation(req, res) {
      res.json(await brands.updateInformation(callerOf(req), req.params.brand_id, req.body));
    },
    async uploadBrandLogo(req, res) {
      res.json(await brands.uploadLogo(callerOf(req), req.params.brand_id, req.body.file));
    },
    async deleteBrandLogo(req, res) {
      res.json(await brands.deleteLogo(callerOf(req), req.params.brand_id));
    },
    async listBrandMembers(req, res) {
      res.json(await brands.members(callerOf(req), req.params.brand_id, pageOf(req.query)));
    },
    async addBrandMember(req, res) {
      res.status(201).json(await brands.addBrandMember(callerOf(req), req.params.brand_id, req.body));
    },
    async updateBrandMember(req, res) {
      res.json(await brands.updateBrandMember(callerOf(req), req.params.brand_id, req.params.user_id, req.body.role));
    },
    async removeBrandMember(req, res) {
      res.json(await brands.removeBrandMember(callerOf(req), req.params.brand_id, req.params.user_id));
    },
    async addUserToBrand(req, res) {
      const userId = req.params.user_id;
      if (req.body.user_id !== undefined && req.body.user_id !== userId) {
        throw AppError.invalid('user_id in the body differs from the path', [
          { location: 'body', field: 'user_id', message: 'must equal the path parameter' },
        ]);
      }
      res.status(201).json(await brands.addMember(userId, req.body.brand_id, req.body.role ?? 'member'));
    },
    /** Public: logos are shown on sites and in e-mails. The key holds the image's hash, so it never changes. */
    async getBrandLogoImage(req, res) {
      const file = req.params.logo_file;
      const found = await brands.logoObject(req.params.brand_id, file);
      if (!found) throw AppError.notFound('Logo not found');
      const etag = `"${file.replace(/\.webp$/, '')}"`;
      res.set({ ETag: etag, 'Cache-Control': IMMUTABLE, 'Last-Modified': found.head.lastModified.toUTCString() });
      // 304 only for a matching If-None-Match (the content's hash, or `*`), as the contract says: If-Modified-Since
      // alone is not consulted.
      if (req.get('if-none-match') && notModified(req, res)) return void res.status(304).end();
      const stream = await found.stream();
      if (!stream) throw AppError.notFound('Logo not found');
      res.status(200).set({ 'Content-Type': 'image/webp', 'Content-Length': String(found.head.size) });
      await pipeline(stream, rawResponse(res)); // the image, as the contract declares it
    },
  };
}

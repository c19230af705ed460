import type { OperationHandlers } from '../lib/http/operations';
import { requireTenant } from '../lib/tenancy';
import { serveMedia } from './media.http';
import { mediaNotSearchable, type MediaService } from './media.service';

/** The resource access layer's media: read by id (photos, their thumbnails), never searched. */
export function mediaRoutes(deps: { media: MediaService }): OperationHandlers {
  return {
    searchMedia(req) {
      requireTenant(req);
      throw mediaNotSearchable();
    },

    async getMedia(req, res) {
      await serveMedia(deps.media, requireTenant(req), req, res);
    },
  };
}

import { Schema, model } from 'mongoose';
import { AppError } from '../lib/errors';
import { baseSchemaOptions, newId } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';
import { decodeImage, processImage } from '../media/image';
import type { MediaStorage } from '../media/storage';

/** A cover is re-encoded within a box of this side (proportions kept, never enlarged). */
export const CONTENT_IMAGE_MAX_PX = 2000;
export const CONTENT_MEDIA_PATH = '/api/v1/content/media';

/**
 * An image a client uploaded for its content (a post's cover): the client owns the record, the bytes live in the
 * media storage (S3 or the data directory, where brand logos are) under a key the public URL names, so the public
 * read needs neither a tenant nor this record.
 */
const contentMediaSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    storage_key: { type: String, required: true },
    content_type: { type: String, required: true },
    size: { type: Number, required: true },
    width: { type: Number, required: true },
    height: { type: Number, required: true },
  },
  baseSchemaOptions,
);
contentMediaSchema.index({ client_id: 1, _id: 1 });
contentMediaSchema.plugin(tenantOwned);
const ContentMediaModel = model('ContentMedia', contentMediaSchema, 'content_media');

/** `content-media/<media_id>/<sha256>.webp`: the URL's two segments under the storage's own prefix. */
const keyOf = (mediaId: string, file: string) => `content-media/${mediaId}/${file}`;

export function createContentMedia(deps: { storage: MediaStorage; publicBaseUrl: string }) {
  const { storage } = deps;
  const urlOf = (mediaId: string, file: string) => `${deps.publicBaseUrl}${CONTENT_MEDIA_PATH}/${mediaId}/${file}`;

  return {
    /**
     * Decodes, checks and re-encodes an uploaded image (WebP, no metadata), stores it under a new random id and
     * answers where the public reads it. The bytes are written before the record, so a record never names
     * missing bytes.
     */
    async upload(clientId: string, file: string) {
      const image = await processImage(decodeImage(file, 'image'), 'image', { inside: CONTENT_IMAGE_MAX_PX });
      const mediaId = newId();
      const name = `${image.sha256}.webp`;
      const key = keyOf(mediaId, name);
      await storage.put(key, image.webp, 'image/webp');
      try {
        await ContentMediaModel.create({
          _id: mediaId,
          client_id: clientId,
          storage_key: key,
          content_type: 'image/webp',
          size: image.webp.length,
          width: image.width,
          height: image.height,
        });
      } catch (err) {
        await storage.delete(key).catch(() => undefined); // no bytes without an owner
        throw err;
      }
      return {
        media_id: mediaId,
        url: urlOf(mediaId, name),
        width: image.width,
        height: image.height,
        content_type: 'image/webp' as const,
      };
    },

    /** Removes a client's image (its bytes, then its record); another client's answers 404. */
    async remove(clientId: string, mediaId: string) {
      const doc = await ContentMediaModel.findOne({ _id: mediaId, client_id: clientId }).lean<{
        storage_key: string;
      }>();
      if (!doc) throw AppError.notFound('Media not found');
      await storage.delete(doc.storage_key);
      await ContentMediaModel.deleteOne({ _id: mediaId, client_id: clientId });
    },

    /** The stored object a public URL names, or null. The file name is the image's hash, so it is the ETag. */
    async object(mediaId: string, file: string) {
      const key = keyOf(mediaId, file);
      const head = await storage.head(key);
      return head ? { head, stream: () => storage.get(key) } : null;
    },
  };
}

export type ContentMedia = ReturnType<typeof createContentMedia>;

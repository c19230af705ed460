import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { AppError } from '../lib/errors';
import { insertReportingDuplicates } from '../lib/bulk-writes';
import { stableUuid } from '../lib/ids';
import { MediaModel, type MediaDoc } from './media.model';
import type { MediaStorage } from './storage';

export const THUMB_MAX_PX = 400;
export const MEDIA_NOT_FOUND = 'media_not_found';

/** What one answer serves: the original or its thumbnail. */
export interface Rendition {
  media_id: string;
  storage_key: string;
  content_type: string;
  size: number;
  etag: string;
  last_modified: Date;
  filename: string | null;
}

const notFound = () => AppError.notFound(MEDIA_NOT_FOUND);

/** Media is read by id only (its search operation exists in the contract, and always says so). */
export const mediaNotSearchable = () =>
  AppError.badRequest('media is not searchable; use GET /api/v1/idap/media/{media_id}');
const etagOf = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A file to store as media. */
export interface MediaFile {
  body: Buffer;
  contentType: string;
  filename?: string | null;
}

export function createMediaService(deps: { storage: MediaStorage }) {
  const { storage } = deps;

  /**
   * Stores files of a tenant: the bytes each under a key derived from the tenant and the bytes (so storing the same
   * file again, by a retried activity or another business with the same photo, finds the first copy), then their
   * records in one insert, a record that exists already kept as it is.
   */
  async function storeFiles(clientId: string, files: MediaFile[]) {
    const now = new Date(); // raw inserts: the schema's timestamps are not applied
    const records = files.map(({ body, contentType, filename }) => {
      const etag = etagOf(body);
      const mediaId = stableUuid(clientId, 'media', etag);
      return {
        _id: mediaId,
        client_id: clientId,
        content_type: contentType,
        size: body.length,
        etag,
        filename: filename ?? null,
        storage_key: `media/${clientId}/${mediaId}`,
        thumb: null,
        created_at: now,
        updated_at: now,
      };
    });
    await Promise.all(
      records.map(async (r, i) => {
        if (!(await storage.exists(r.storage_key))) await storage.put(r.storage_key, files[i].body, r.content_type);
      }),
    );
    await insertReportingDuplicates(MediaModel, records);
    return records.map((r) => ({ media_id: r._id, idap_ref: `idap://media/${r._id}` }));
  }

  /** The thumbnail (at most THUMB_MAX_PX on its longest side, WebP), made once and kept in storage. */
  async function thumbnail(media: MediaDoc): Promise<NonNullable<MediaDoc['thumb']>> {
    if (media.thumb && (await storage.exists(media.thumb.storage_key))) return media.thumb;
    if (!media.content_type.startsWith('image/'))
      throw AppError.invalid('thumb: this media is not an image', [
        { location: 'query', field: 'thumb', message: 'thumbnails exist for images only' },
      ]);
    const original = await storage.get(media.storage_key);
    if (!original) throw notFound();
    const bytes = await sharp(await readAll(original))
      .rotate()
      .resize(THUMB_MAX_PX, THUMB_MAX_PX, { fit: 'inside', withoutEnlargement: true })
      .webp()
      .toBuffer();
    const thumb = {
      storage_key: `${media.storage_key}.thumb${THUMB_MAX_PX}.webp`,
      content_type: 'image/webp',
      size: bytes.length,
      etag: etagOf(bytes),
    };
    await storage.put(thumb.storage_key, bytes, thumb.content_type);
    await MediaModel.updateOne({ _id: media._id, client_id: media.client_id }, { $set: { thumb } });
    return thumb;
  }

  return {
    storage,

    /**
     * Stores a file of a tenant and answers its id and ref. The id is derived from the tenant and the
     * bytes, so storing the same photo again (a retried activity) finds the first copy.
     */
    async storeMedia(clientId: string, body: Buffer, contentType: string, filename?: string | null) {
      return (await storeFiles(clientId, [{ body, contentType, filename }]))[0];
    },

    /** Stores several files of a tenant at once (their records in one statement); answers their ids and refs. */
    storeFiles,

    /** The original or the thumbnail of a tenant's media; another tenant's is not found. */
    async rendition(clientId: string, mediaId: string, thumb: boolean): Promise<Rendition> {
      const media = await MediaModel.findOne({ _id: mediaId, client_id: clientId }).lean<MediaDoc>();
      if (!media) throw notFound();
      const r = thumb ? await thumbnail(media) : media;
      return {
        media_id: mediaId,
        storage_key: r.storage_key,
        content_type: r.content_type!,
        size: r.size!,
        etag: r.etag!,
        last_modified: media.created_at,
        filename: media.filename ?? null,
      };
    },

    async open(r: Rendition): Promise<Readable> {
      const stream = await storage.get(r.storage_key);
      if (!stream) throw notFound();
      return stream;
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;

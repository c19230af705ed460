import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { AppError } from '../lib/errors';

/**
 * Images people upload (a brand's logo, a post's cover): sent as base64 in a JSON body's `file`, decoded,
 * checked and re-encoded by one sharp pipeline, so what is stored is always a WebP that sharp wrote (no
 * metadata: EXIF, GPS position, ICC comments are dropped), never the bytes that came in.
 */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Decoded pixels sharp will read at most (a 5,000 x 5,000 image): larger headers are decompression bombs. */
export const IMAGE_MAX_INPUT_PIXELS = 25_000_000;
const FORMATS = new Set(['png', 'jpeg', 'webp', 'gif', 'avif', 'heif']);
const DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,/i;
const BASE64 = /^[A-Z0-9+/]*={0,2}$/i;

/** What the image is, for the 422's words: "The logo is not usable: ...". */
export type ImageRole = 'logo' | 'image';

const unusable = (role: ImageRole, message: string) =>
  AppError.invalid(`The ${role} is not usable: ${message}`, [{ location: 'body', field: 'file', message }]);

/** The bytes of a `data:image/...;base64,` URL or of plain base64, at most IMAGE_MAX_BYTES. */
export function decodeImage(file: string, role: ImageRole): Buffer {
  const payload = file.replace(DATA_URL, '').replace(/\s+/g, '');
  if (!payload || !BASE64.test(payload)) throw unusable(role, 'not base64 or a base64 data URL');
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length > IMAGE_MAX_BYTES) throw unusable(role, `larger than ${IMAGE_MAX_BYTES} bytes`);
  return bytes;
}

export interface ProcessedImage {
  webp: Buffer;
  sha256: string;
  width: number;
  height: number;
}

/**
 * How the stored image is shaped: `square` center-crops to a square of at most that side (a logo), `inside`
 * keeps the proportions within a box of that side (a cover). Neither ever enlarges.
 */
export type ImageShape = { square: number } | { inside: number };

/**
 * The stored image: EXIF orientation applied, shaped, WebP without metadata. Only the first frame of an
 * animation is kept. Anything sharp cannot decode, and images over IMAGE_MAX_INPUT_PIXELS, are a 422 naming
 * the field.
 */
export async function processImage(bytes: Buffer, role: ImageRole, shape: ImageShape): Promise<ProcessedImage> {
  const opts = { limitInputPixels: IMAGE_MAX_INPUT_PIXELS, failOn: 'error' as const, animated: false };
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes, opts).metadata();
  } catch {
    throw unusable(role, 'not a PNG, JPEG, WebP, GIF or AVIF image');
  }
  if (!meta.format || !FORMATS.has(meta.format)) {
    throw unusable(role, `unsupported image format ${meta.format ?? 'unknown'}`);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width * height > IMAGE_MAX_INPUT_PIXELS) throw unusable(role, `more than ${IMAGE_MAX_INPUT_PIXELS} pixels`);
  // One pipeline (auto-orient, crop or fit, shrink, encode), so a large JPEG is shrunk while it is decoded and no
  // full-size intermediate image is encoded. A square's side is the shorter edge, whichever way up.
  const resize =
    'square' in shape
      ? (() => {
          const side = Math.min(width, height, shape.square);
          return { width: side, height: side, fit: 'cover' as const, position: 'centre' };
        })()
      : { width: shape.inside, height: shape.inside, fit: 'inside' as const };
  try {
    const { data, info } = await sharp(bytes, opts)
      .rotate()
      .resize({ ...resize, withoutEnlargement: true })
      .webp({ quality: 86 })
      .toBuffer({ resolveWithObject: true });
    return {
      webp: data,
      sha256: createHash('sha256').update(data).digest('hex'),
      width: info.width,
      height: info.height,
    };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw unusable(role, 'the image data is corrupt');
  }
}

import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { AppError } from '../lib/errors';

export const LOGO_MAX_PX = 256;
export const LOGO_MAX_BYTES = 5 * 1024 * 1024;
/** Decoded pixels sharp will read at most (a 5,000 x 5,000 image): larger headers are decompression bombs. */
export const LOGO_MAX_INPUT_PIXELS = 25_000_000;
const FORMATS = new Set(['png', 'jpeg', 'webp', 'gif', 'avif', 'heif']);
const DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,/i;
const BASE64 = /^[A-Z0-9+/]*={0,2}$/i;

const unusable = (message: string) =>
  AppError.invalid(`The logo is not usable: ${message}`, [{ location: 'body', field: 'file', message }]);

/** The bytes of a `data:image/...;base64,` URL or of plain base64. */
export function decodeLogo(file: string): Buffer {
  const payload = file.replace(DATA_URL, '').replace(/\s+/g, '');
  if (!payload || !BASE64.test(payload)) throw unusable('not base64 or a base64 data URL');
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length > LOGO_MAX_BYTES) throw unusable(`larger than ${LOGO_MAX_BYTES} bytes`);
  return bytes;
}

export interface ProcessedLogo {
  webp: Buffer;
  sha256: string;
  width: number;
  height: number;
}

/**
 * The stored logo: EXIF orientation applied, center-cropped to a square, at most 256 px (never
 * enlarged), WebP. Only the first frame of an animation is kept. Anything sharp cannot decode, and
 * images over LOGO_MAX_INPUT_PIXELS, are a 422 naming the field.
 */
export async function processLogo(bytes: Buffer): Promise<ProcessedLogo> {
  const opts = { limitInputPixels: LOGO_MAX_INPUT_PIXELS, failOn: 'error' as const, animated: false };
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes, opts).metadata();
  } catch {
    throw unusable('not a PNG, JPEG, WebP, GIF or AVIF image');
  }
  if (!meta.format || !FORMATS.has(meta.format)) throw unusable(`unsupported image format ${meta.format ?? 'unknown'}`);
  if ((meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) > LOGO_MAX_INPUT_PIXELS) {
    throw unusable(`more than ${LOGO_MAX_INPUT_PIXELS} pixels`);
  }
  // One pipeline (auto-orient, crop, shrink, encode), so a large JPEG is shrunk while it is decoded and no
  // full-size intermediate image is encoded. The square's side is the shorter edge, whichever way up.
  const side = Math.min(meta.width ?? 0, meta.pageHeight ?? meta.height ?? 0, LOGO_MAX_PX);
  try {
    const { data, info } = await sharp(bytes, opts)
      .rotate()
      .resize(side, side, { fit: 'cover', position: 'centre', withoutEnlargement: true })
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
    throw unusable('the image data is corrupt');
  }
}

import { pipeline } from 'node:stream/promises';
import { rawResponse, type OperationRequest, type OperationResponse } from '../lib/http/operations';
import { transliterate } from 'transliteration';
import { notModified } from '../lib/http/conditional-get';
import type { MediaService, Rendition } from './media.service';
import { oneOf, trimWhere } from '../lib/trim';

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'application/pdf': 'pdf',
  'image/svg+xml': 'svg',
};

/**
 * Types a browser shows inline without running anything: raster images. Anything else a provider answered
 * (SVG, which can carry script, HTML, PDF, unknown types) is served as an attachment, so opening the link
 * downloads it instead of running it on this origin.
 */
const INLINE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif']);
const mediaType = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

/** An ASCII file name without paths, quotes or control characters, with the rendition's extension. */
export function safeFilename(r: Rendition): string {
  const ext = EXTENSIONS[mediaType(r.content_type)] ?? 'bin';
  const safe = transliterate(r.filename ?? '')
    .replace(/^.*[\\/]/, '')
    .replace(/\.[A-Z0-9]{1,5}$/i, '')
    .replace(/[^\w. -]+/g, '_');
  const base = trimWhere(safe, oneOf(/[.\s_-]/)).slice(0, 100);
  return `${base || r.media_id}.${ext}`;
}

/**
 * Streams a tenant's media with its validators; 304 without a body when the caller's copy is current. What is
 * not a raster image is an attachment, and a sandbox CSP keeps even a browser that renders it from running it.
 */
export async function serveMedia(
  media: MediaService,
  clientId: string,
  req: OperationRequest<'getMedia'>,
  res: OperationResponse<'getMedia'>,
): Promise<void> {
  const q = req.query; // the contract's booleans, coerced by its validator: read as `=== true`, as every flag is
  const r = await media.rendition(clientId, req.params.media_id, q.thumb === true);
  res.set({ ETag: r.etag, 'Last-Modified': r.last_modified.toUTCString(), 'Cache-Control': 'private, max-age=86400' });
  if (notModified(req, res)) return void res.status(304).end();
  const stream = await media.open(r);
  if (q.download === true || !INLINE_TYPES.has(mediaType(r.content_type))) res.attachment(safeFilename(r));
  res.status(200).set({
    'Content-Type': r.content_type,
    'Content-Length': String(r.size),
    'Content-Security-Policy': "default-src 'none'; sandbox",
  });
  await pipeline(stream, rawResponse(res)); // the bytes, of the media type the contract declares
}

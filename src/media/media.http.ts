import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { transliterate } from 'transliteration';
import type { MediaService, Rendition } from './media.service';

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif', 'image/avif': 'avif', 'application/pdf': 'pdf',
};

/** An ASCII file name without paths, quotes or control characters, with the rendition's extension. */
export function safeFilename(r: Rendition): string {
  const ext = EXTENSIONS[r.content_type] ?? 'bin';
  const base = transliterate(r.filename ?? '').replace(/^.*[\\/]/, '').replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[^A-Za-z0-9._ -]+/g, '_').replace(/^[.\s_-]+|[.\s_-]+$/g, '').slice(0, 100);
  return `${base || r.media_id}.${ext}`;
}

/** RFC 9110 §13.1: If-None-Match decides when present; else If-Modified-Since at one-second precision. */
export function notModified(req: Request, r: Rendition): boolean {
  const inm = req.get('if-none-match');
  if (inm) {
    const tags = inm.split(',').map((t) => t.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(r.etag);
  }
  const ims = Date.parse(req.get('if-modified-since') ?? '');
  return !Number.isNaN(ims) && Math.floor(r.last_modified.getTime() / 1000) * 1000 <= ims;
}

/** Streams a tenant's media with its validators; 304 without a body when the caller's copy is current. */
export async function serveMedia(media: MediaService, clientId: string, mediaId: string, req: Request, res: Response): Promise<void> {
  const q = req.query as { thumb?: boolean; download?: boolean };
  const r = await media.rendition(clientId, mediaId, Boolean(q.thumb));
  res.set({ ETag: r.etag, 'Last-Modified': r.last_modified.toUTCString(), 'Cache-Control': 'private, max-age=86400' });
  if (notModified(req, r)) return void res.status(304).end();
  const stream = await media.open(r);
  if (q.download) res.attachment(safeFilename(r));
  res.status(200).set({ 'Content-Type': r.content_type, 'Content-Length': String(r.size) });
  await pipeline(stream, res);
}

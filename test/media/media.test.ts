import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import sharp from 'sharp';
import { createClient, startTestApi, type TestApi } from '../support/harness';
import { media, png } from './media-helpers';

describe('GET /idap/media/{media_id} (local storage)', () => {
  let api: TestApi;
  let a: { client_id: string; triple: string };
  let b: { client_id: string; triple: string };
  let m: ReturnType<typeof media>;
  let photo: Buffer;
  let photoId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const admin = await api.login();
    a = await createClient(api, admin, 'Media A');
    b = await createClient(api, admin, 'Media B');
    m = media(api);
    photo = await png(1200, 800);
    photoId = (await m.store(a.client_id, photo, 'image/png', '../Shop front "Café".png')).media_id;
  });
  afterAll(() => api.stop());

  it('serves the file with Content-Type, Content-Length, ETag, Last-Modified and no Content-Disposition', async () => {
    const res = await m.get(a.triple, photoId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(photo.length));
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(Date.parse(res.headers.get('last-modified')!)).not.toBeNaN();
    expect(res.headers.get('content-disposition')).toBeNull();
    expect((await m.bytes(res)).equals(photo)).toBe(true);
    expect(fs.existsSync(path.join(api.config.dataDir, 'media', 'media', a.client_id, photoId))).toBe(true);
  });

  it('answers 304 without a body to a current If-None-Match or If-Modified-Since, 200 otherwise', async () => {
    const first = await m.get(a.triple, photoId);
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    const current: Record<string, string>[] = [
      { 'If-None-Match': etag },
      { 'If-None-Match': `"other", ${etag}` },
      { 'If-Modified-Since': lastModified },
    ];
    for (const headers of current) {
      const res = await m.get(a.triple, photoId, '', headers);
      expect(res.status).toBe(304);
      expect((await m.bytes(res)).length).toBe(0);
      expect(res.headers.get('etag')).toBe(etag);
    }
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    const stale: Record<string, string>[] = [
      { 'If-None-Match': '"other"' },
      { 'If-Modified-Since': earlier },
      { 'If-None-Match': '"other"', 'If-Modified-Since': lastModified },
    ];
    for (const headers of stale) {
      expect((await m.get(a.triple, photoId, '', headers)).status).toBe(200);
    }
  });

  it('serves a thumbnail of at most 400 px, made once and kept in storage', async () => {
    const res = await m.get(a.triple, photoId, '?thumb=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    const thumb = await m.bytes(res);
    expect(res.headers.get('content-length')).toBe(String(thumb.length));
    const meta = await sharp(thumb).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([400, 267, 'webp']);
    expect(res.headers.get('etag')).not.toBe((await m.get(a.triple, photoId)).headers.get('etag'));
    const file = path.join(api.config.dataDir, 'media', 'media', a.client_id, `${photoId}.thumb400.webp`);
    const made = fs.statSync(file).mtimeMs;
    const again = await m.get(a.triple, photoId, '?thumb=true');
    expect((await m.bytes(again)).equals(thumb)).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(made);
    expect(
      (await m.get(a.triple, photoId, '?thumb=true', { 'If-None-Match': again.headers.get('etag')! })).status,
    ).toBe(304);
    // A small image is not enlarged.
    const small = (await m.store(a.client_id, await png(120, 90), 'image/png')).media_id;
    const smallThumb = await sharp(await m.bytes(await m.get(a.triple, small, '?thumb=true'))).metadata();
    expect([smallThumb.width, smallThumb.height]).toEqual([120, 90]);
  });

  it('adds Content-Disposition attachment with a safe file name on download=true', async () => {
    const res = await m.get(a.triple, photoId, '?download=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Shop front _Cafe.png"');
    const anonymous = (await m.store(a.client_id, Buffer.from('%PDF-1.4 test'), 'application/pdf')).media_id;
    const pdf = await m.get(a.triple, anonymous, '?download=true');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename=${anonymous}.pdf`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
  });

  it('is served with nosniff; an SVG (or other non-raster type) from upstream only ever as an attachment', async () => {
    const png = await m.get(a.triple, photoId);
    expect(png.headers.get('x-content-type-options')).toBe('nosniff');
    expect(png.headers.get('content-disposition')).toBeNull();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
    for (const type of ['image/svg+xml', 'Image/SVG+XML; charset=utf-8', 'text/html']) {
      const { media_id } = await m.store(a.client_id, Buffer.concat([svg, Buffer.from(type)]), type, 'logo.svg');
      const res = await m.get(a.triple, media_id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')?.startsWith(type)).toBe(true); // Express adds a charset to text/html
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename=logo.${type === 'text/html' ? 'bin' : 'svg'}`,
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    }
  });

  it('stores the same bytes of a tenant once (a retried activity finds the first copy)', async () => {
    const again = await m.store(a.client_id, photo, 'image/png', 'another name.png');
    expect(again).toEqual({ media_id: photoId, idap_ref: `idap://media/${photoId}` });
    const forB = await m.store(b.client_id, photo, 'image/png');
    expect(forB.media_id).not.toBe(photoId);
  });

  it('404 media_not_found for an unknown id, another tenant’s media, a lost file; 401 without a key', async () => {
    for (const [token, id] of [
      [a.triple, '00000000-0000-4000-8000-000000000000'],
      [b.triple, photoId],
    ]) {
      const res = await m.get(token, id);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: 'media_not_found' });
    }
    const lost = (await m.store(a.client_id, await png(10, 10), 'image/png')).media_id;
    fs.rmSync(path.join(api.config.dataDir, 'media', 'media', a.client_id, lost));
    const res = await m.get(a.triple, lost);
    expect([res.status, await res.json()]).toEqual([404, { detail: 'media_not_found' }]);
    expect((await fetch(`${api.url}/api/v1/idap/media/${photoId}`)).status).toBe(401);
  });

  it('streams a 50 MB file with flat memory', async () => {
    const size = 50 * 1024 * 1024;
    const big = Buffer.alloc(size, 'lead-data ');
    const { media_id } = await m.store(a.client_id, big, 'application/octet-stream', 'big.bin');
    // Memory that stays reachable while the file streams, measured after a collection every 5 MB, so
    // that chunks already sent and dropped do not count.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage();
    let peakRss = 0;
    let peakBuffers = 0;
    const samples: number[] = [];
    // node:http as the client: it reads with backpressure, so what it holds is one socket buffer.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(`${api.url}/api/v1/idap/media/${media_id}`, { headers: { authorization: `Bearer ${a.triple}` } }, resolve)
        .on('error', reject);
    });
    expect(res.headers['content-length']).toBe(String(size));
    let received = 0;
    let nextCheck = 0;
    for await (const chunk of res) {
      received += (chunk as Buffer).length;
      if (received < nextCheck) continue;
      nextCheck += 5 * 1024 * 1024;
      gc();
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss - before.rss);
      peakBuffers = Math.max(peakBuffers, now.arrayBuffers - before.arrayBuffers);
      samples.push(now.arrayBuffers - before.arrayBuffers);
    }
    expect(received).toBe(size);
    // Server and client run in this process. Buffers kept alive stay near zero while the file streams (a
    // server that read the file into memory would keep 50 MB at every sample); other work in the process
    // (the worker, the driver) may allocate now and then, so the peak is only held below half the file.
    samples.sort((x, y) => x - y);
    expect(samples.length).toBeGreaterThanOrEqual(10);
    expect(samples[Math.floor(samples.length / 2)]).toBeLessThan(size / 50);
    expect(peakBuffers).toBeLessThan(size / 2);
    expect(peakRss).toBeLessThan(size / 2);
  });
});

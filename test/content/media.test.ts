import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { startTestApi, type TestApi } from '../support/harness';
import { png } from '../media/media-helpers';
import { agentToken, createSite, doc, type Site } from './content-helpers';

const dataUrl = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;

/** A JPEG carrying EXIF (a camera's make and a GPS position) that the stored copy must not keep. */
const jpegWithExif = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .jpeg()
    .withExif({ IFD0: { Make: 'Test camera' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 5/1 0/1' } })
    .toBuffer();

/** Covers uploaded through the content media operation and read back by their public URL. */
describe('content media (cover uploads)', () => {
  let api: TestApi;
  let admin: string;
  let site: Site;
  let other: Site;

  const upload = (file: string, token = site.triple) =>
    api.call('POST', '/api/v1/dashboard/content/media', { token, body: { file } });
  const read = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    site = await createSite(api, admin, 'Covers', 'covers.example');
    other = await createSite(api, admin, 'Elsewhere', 'elsewhere.example');
  });
  afterAll(() => api.stop());

  it('stores a PNG as a WebP served publicly, immutable, with a 304 for a matching If-None-Match', async () => {
    const res = await upload(dataUrl(await png(640, 360), 'image/png'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      media_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: expect.stringMatching(/\/api\/v1\/content\/media\/[0-9a-f-]{36}\/[0-9a-f]{64}\.webp$/),
      width: 640,
      height: 360,
      content_type: 'image/webp',
    });
    expect(new URL(res.body.url).origin).toBe(new URL(api.url).origin);
    expect(res.body.url).toContain(res.body.media_id);

    // No credential and no X-Content-Domain: the URL is the permission.
    const { res: got, bytes } = await read(res.body.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/webp');
    expect(got.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = got.headers.get('etag')!;
    expect(etag).toBe(`"${res.body.url.match(/([0-9a-f]{64})\.webp$/)[1]}"`);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'webp', width: 640, height: 360 });

    const again = await read(res.body.url, { 'if-none-match': etag });
    expect(again.res.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect((await read(res.body.url, { 'if-none-match': '"something-else"' })).res.status).toBe(200);
  });

  it('re-encodes a JPEG without its EXIF, fitted within 2000 px', async () => {
    const jpeg = await jpegWithExif(2400, 1200);
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const res = await upload(jpeg.toString('base64'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ width: 2000, height: 1000, content_type: 'image/webp' });
    const { res: got, bytes } = await read(res.body.url);
    expect(got.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 2000, height: 1000 });
    expect(meta.exif).toBeUndefined();
    expect(bytes.includes(Buffer.from('Test camera'))).toBe(false);
  });

  it('refuses what is not an image, an over-large image and an over-large body, saying why', async () => {
    const text = await upload(Buffer.from('just some words, not a picture').toString('base64'));
    expect(text.status).toBe(422);
    expect(text.body.detail).toMatch(/not usable: not a PNG, JPEG/);

    const notBase64 = await upload('this is not base64!');
    expect(notBase64.status).toBe(422);
    expect(notBase64.body.detail).toMatch(/not base64/);

    const huge = await upload(randomBytes(5 * 1024 * 1024 + 10).toString('base64'));
    expect(huge.status).toBe(422);
    expect(huge.body.detail).toMatch(/larger than 5242880 bytes/);

    const tooLong = await api.call('POST', '/api/v1/dashboard/content/media', {
      token: site.triple,
      rawBody: JSON.stringify({ file: 'A'.repeat(7_200_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(tooLong.status).toBe(413);
    expect(tooLong.body.detail).toEqual(expect.any(String));

    const missing = await api.call('POST', '/api/v1/dashboard/content/media', { token: site.triple, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toEqual(expect.any(String));
  });

  it('needs content:write and a tenant; a super_admin names the client', async () => {
    const file = (await png(20, 20)).toString('base64');
    expect((await api.call('POST', '/api/v1/dashboard/content/media', { body: { file } })).status).toBe(401);
    const reader = await agentToken(site.client_id, ['content:read']);
    expect((await upload(file, reader)).status).toBe(403);
    const writer = await agentToken(site.client_id, ['content:write']);
    expect((await upload(file, writer)).status).toBe(201);
    expect((await upload(file, admin)).status).toBe(422);
    const acting = await api.call('POST', '/api/v1/dashboard/content/media', {
      token: admin,
      body: { file },
      headers: { 'x-selected-client-id': site.client_id },
    });
    expect(acting.status).toBe(201);
  });

  it("may be any post's cover; only the uploading client deletes it, and then it is gone", async () => {
    const media = (await upload(dataUrl(await png(300, 200), 'image/png'))).body;
    const post = await api.call('POST', '/api/v1/dashboard/content/posts', {
      token: other.triple,
      body: { slug: 'borrowed', title: 'Borrowed cover', body: doc('Hi'), cover_image_url: media.url },
    });
    expect(post.status).toBe(201);
    expect(post.body.cover_image_url).toBe(media.url);

    const del = (token: string) => api.call('DELETE', `/api/v1/dashboard/content/media/${media.media_id}`, { token });
    expect((await del(other.triple)).status).toBe(404);
    expect((await read(media.url)).res.status).toBe(200);
    expect((await del(site.triple)).status).toBe(204);
    const gone = await read(media.url);
    expect(gone.res.status).toBe(404);
    expect(JSON.parse(gone.bytes.toString()).detail).toBe('Media not found');
    expect((await del(site.triple)).status).toBe(404);
    const dir = path.join(api.config.dataDir, 'media', 'content-media', media.media_id);
    expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
  });

  it('answers 404 for an unknown image and 422 for a malformed file name', async () => {
    const unknown = `${api.url}/api/v1/content/media/3f6c1a9e-7b2d-4e8f-9a0c-5d1e2f3a4b6c/${'a'.repeat(64)}.webp`;
    expect((await read(unknown)).res.status).toBe(404);
    const malformed = `${api.url}/api/v1/content/media/3f6c1a9e-7b2d-4e8f-9a0c-5d1e2f3a4b6c/..%2Fsecret.webp`;
    expect((await read(malformed)).res.status).toBe(422);
  });
});

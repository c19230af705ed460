import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { createClient, useTestApi } from '../support/harness';
import { png } from '../media/media-helpers';
import { BrandModel } from '../../src/brands/brand.model';

const dataUrl = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;

/** A 300x200 JPEG whose pixels are stored sideways with EXIF orientation 6 (display rotated 90° clockwise). */
async function sidewaysJpeg(): Promise<Buffer> {
  const raw = Buffer.alloc(300 * 200 * 3);
  // red left half
  for (let y = 0; y < 200; y++) for (let x = 0; x < 300; x++) raw[(y * 300 + x) * 3] = x < 150 ? 255 : 0;
  return sharp(raw, { raw: { width: 300, height: 200, channels: 3 } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** A few hundred bytes of PNG whose header declares 2.5 billion pixels: what limitInputPixels is for. */
async function pixelBomb(): Promise<string> {
  const file = Buffer.from(await png(8, 8));
  file.writeUInt32BE(50_000, 16); // IHDR width
  file.writeUInt32BE(50_000, 20); // IHDR height
  file.writeUInt32BE(zlib.crc32(file.subarray(12, 29)), 29); // the chunk's CRC over type and data
  return file.toString('base64');
}

async function animatedGif(): Promise<Buffer> {
  const frame = (r: number) =>
    sharp({ create: { width: 120, height: 80, channels: 3, background: { r, g: 0, b: 0 } } })
      .png()
      .toBuffer();
  const frames = await Promise.all([frame(255), frame(0), frame(128)]);
  return sharp(frames, { join: { animated: true } })
    .gif()
    .toBuffer();
}

describe('brand logos', () => {
  const ctx = useTestApi();
  let triple: string;
  let brandId: number;

  beforeAll(async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Logos');
    triple = client.triple;
    const res = await ctx.api.call('POST', '/api/v1/brands', {
      token: triple,
      body: { brand_name: 'Logo', slug: 'logo' },
    });
    brandId = res.body.brand_id;
  });

  const upload = (file: string) =>
    ctx.api.call('POST', `/api/v1/brands/${brandId}/logo`, { token: triple, body: { file } });
  const fetchLogo = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const storedLogos = () => {
    const dir = path.join(ctx.api.config.dataDir, 'media', 'brand-logos', String(brandId));
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  it.each([
    ['PNG 640x480', async () => dataUrl(await png(640, 480), 'image/png'), 256],
    ['small PNG (never enlarged)', async () => (await png(100, 60)).toString('base64'), 60],
    ['animated GIF', async () => dataUrl(await animatedGif(), 'image/gif'), 80],
    [
      'WebP',
      async () =>
        dataUrl(
          await sharp(await png(500, 900))
            .webp()
            .toBuffer(),
          'image/webp',
        ),
      256,
    ],
  ])('%s comes out square, at most 256 px, WebP, served with ETag and a long cache', async (_name, make, side) => {
    const res = await upload(await make());
    expect(res.status).toBe(200);
    expect(res.body.logo_url).toMatch(new RegExp(`/api/v1/brand-logos/${brandId}/[0-9a-f]{64}\\.webp$`));
    const { res: img, bytes } = await fetchLogo(res.body.logo_url);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/webp');
    expect(img.headers.get('x-content-type-options')).toBe('nosniff');
    expect(img.headers.get('cache-control')).toContain('max-age=31536000');
    const meta = await sharp(bytes).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'webp',
      width: side,
      height: side,
    });
    const again = await fetch(res.body.logo_url, { headers: { 'if-none-match': img.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await fetch(res.body.logo_url, { headers: { 'if-none-match': '*' } })).status).toBe(304);
    expect((await fetch(res.body.logo_url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    const settings = await ctx.api.call('GET', `/api/v1/brands/${brandId}/settings`, { token: triple });
    expect(settings.body.logo_url).toBe(res.body.logo_url);
    expect(storedLogos()).toHaveLength(1); // a replaced logo leaves no orphan
  });

  it('takes a logo of several megabytes (up to the documented 5 MB), more than the default body limit', async () => {
    const noise = await sharp(randomBytes(1100 * 1100 * 3), { raw: { width: 1100, height: 1100, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const file = dataUrl(noise, 'image/png');
    expect(file.length).toBeGreaterThan(ctx.api.config.JSON_BODY_LIMIT_BYTES * 3);
    const res = await upload(file);
    expect(res.status).toBe(200);
    expect((await sharp((await fetchLogo(res.body.logo_url)).bytes).metadata()).width).toBe(256);
  });

  it('a body beyond the logo limit is 413 before anything is decoded', async () => {
    const res = await upload('A'.repeat(7_200_000));
    expect(res.status).toBe(413);
    expect(typeof res.body.detail).toBe('string');
  });

  it('honours EXIF orientation before cropping', async () => {
    const res = await upload(dataUrl(await sidewaysJpeg(), 'image/jpeg'));
    expect(res.status).toBe(200);
    const { bytes } = await fetchLogo(res.body.logo_url);
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(200); // upright it is 200x300, cropped to 200x200
    const red = (x: number, y: number) => data[(y * info.width + x) * info.channels];
    // Rotated 90° clockwise, the red left half of the stored pixels becomes the top half.
    expect(red(100, 10)).toBeGreaterThan(200);
    expect(red(100, 190)).toBeLessThan(60);
  });

  it.each([
    ['text, not an image', Buffer.from('hello, this is not a picture').toString('base64')],
    ['not base64 at all', '%%% not base64 %%%'],
    ['a truncated PNG', async () => (await png(64, 64)).subarray(0, 80).toString('base64')],
    [
      'an SVG (a format sharp reads, but not one of the accepted ones)',
      dataUrl(
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>',
        ),
        'image/svg+xml',
      ),
    ],
    [
      'a TIFF',
      async () =>
        dataUrl(
          await sharp(await png(32, 32))
            .tiff()
            .toBuffer(),
          'image/tiff',
        ),
    ],
    ['a decompression bomb (a small file that declares 50,000 x 50,000 pixels)', async () => pixelBomb()],
  ])('%s is a 422 that says so', async (_name, make) => {
    const file = typeof make === 'function' ? await make() : make;
    const before = storedLogos();
    const res = await upload(file);
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^The logo is not usable/);
    expect(res.body.errors[0].field).toBe('file');
    expect(storedLogos()).toEqual(before);
  });

  it('concurrent replacements leave exactly one object, the one logo_url points to', async () => {
    const sides = [40, 41, 42, 43, 44];
    const results = await Promise.all(sides.map(async (side) => upload((await png(side, side)).toString('base64'))));
    expect(results.map((r) => r.status)).toEqual(sides.map(() => 200));
    const settings = await ctx.api.call('GET', `/api/v1/brands/${brandId}/settings`, { token: triple });
    expect(storedLogos()).toEqual([path.basename(settings.body.logo_url)]);
  });

  it('a logo whose record cannot be written is removed again: the old logo stays, nothing is orphaned', async () => {
    const kept = await upload((await png(30, 30)).toString('base64'));
    const before = storedLogos();
    const dbDown = Object.assign(new Error('connection 3 to 127.0.0.1 closed'), { name: 'MongoNetworkError' });
    const spy = jest.spyOn(BrandModel, 'updateOne').mockRejectedValueOnce(dbDown);
    try {
      const res = await upload((await png(31, 31)).toString('base64'));
      expect(res.status).toBe(503);
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    expect(storedLogos()).toEqual(before);
    const settings = await ctx.api.call('GET', `/api/v1/brands/${brandId}/settings`, { token: triple });
    expect(settings.body.logo_url).toBe(kept.body.logo_url);
  });

  it('deleting the logo removes the object; its URL then answers 404', async () => {
    const res = await upload(dataUrl(await png(50, 50), 'image/png'));
    const removed = await ctx.api.call('DELETE', `/api/v1/brands/${brandId}/logo`, { token: triple });
    expect(removed.body).toMatchObject({ brand_id: brandId, logo_url: null });
    expect(storedLogos()).toEqual([]);
    expect((await fetch(res.body.logo_url)).status).toBe(404);
    // idempotent
    expect((await ctx.api.call('DELETE', `/api/v1/brands/${brandId}/logo`, { token: triple })).status).toBe(200);
  });
});

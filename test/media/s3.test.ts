import sharp from 'sharp';
import { S3Storage } from '../../src/media/storage';
import { createClient, startTestApi, type TestApi } from '../support/harness';
import { startLocalS3 } from '../support/local-s3';
import { media, png } from './media-helpers';

/** The S3 adapter against a local S3-compatible server (s3rver), directly and behind the API. */
describe('media on S3', () => {
  const bucket = 'lead-media';
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  let api: TestApi;

  beforeAll(async () => {
    s3 = await startLocalS3(bucket);
    api = await startTestApi(s3.env);
  });
  afterAll(async () => {
    await api?.stop();
    await s3?.stop();
  });

  it('puts, heads, streams and checks objects', async () => {
    const storage = new S3Storage(s3.client, bucket);
    expect(await storage.exists('tests/one.txt')).toBe(false);
    expect(await storage.head('tests/one.txt')).toBeNull();
    expect(await storage.get('tests/one.txt')).toBeNull();
    await storage.put('tests/one.txt', Buffer.from('hello s3'), 'text/plain');
    expect(await storage.exists('tests/one.txt')).toBe(true);
    expect(await storage.head('tests/one.txt')).toEqual({ size: 8, lastModified: expect.any(Date) });
    const chunks: Buffer[] = [];
    for await (const c of (await storage.get('tests/one.txt'))!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello s3');
    await expect(storage.put('../escape', Buffer.from('x'), 'text/plain')).rejects.toThrow(/invalid storage key/);
  });

  it('serves media stored in the bucket, with its thumbnail made once and kept there', async () => {
    expect(api.rt.infra.media.storage.kind).toBe('s3');
    const admin = await api.login();
    const tenant = await createClient(api, admin, 'S3 Tenant');
    const m = media(api);
    const photo = await png(900, 1200);
    const { media_id } = await m.store(tenant.client_id, photo, 'image/png', 'front.png');
    const res = await m.get(tenant.triple, media_id);
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-length')]).toEqual([
      200,
      'image/png',
      String(photo.length),
    ]);
    expect((await m.bytes(res)).equals(photo)).toBe(true);
    expect((await m.get(tenant.triple, media_id, '', { 'If-None-Match': res.headers.get('etag')! })).status).toBe(304);
    const thumb = await m.get(tenant.triple, media_id, '?thumb=true');
    const meta = await sharp(await m.bytes(thumb)).metadata();
    expect([meta.width, meta.height]).toEqual([300, 400]);
    expect(await api.rt.infra.media.storage.exists(`media/${tenant.client_id}/${media_id}.thumb400.webp`)).toBe(true);
    const other = await createClient(api, admin, 'S3 Other');
    expect((await m.get(other.triple, media_id)).status).toBe(404);
  });
});

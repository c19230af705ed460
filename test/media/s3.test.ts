import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import sharp from 'sharp';
import { S3Storage } from '../../src/media/storage';
import { createClient, startTestApi, type TestApi } from '../support/harness';
import { media, png } from './media-helpers';

/** The S3 adapter against a local S3-compatible server (s3rver), directly and behind the API. */
describe('media on S3', () => {
  const bucket = 'lead-media';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  let server: { close(): Promise<void> };
  let endpoint: string;
  let api: TestApi;

  beforeAll(async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: bucket }],
    });
    const { port } = await (server as unknown as { run(): Promise<AddressInfo> }).run();
    endpoint = `http://127.0.0.1:${port}`;
    api = await startTestApi({
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    });
  });
  afterAll(async () => {
    await api?.stop();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('puts, heads, streams and checks objects', async () => {
    const client = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const storage = new S3Storage(client, bucket);
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
    client.destroy();
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

import sharp from 'sharp';
import { createClient, startTestApi, type TestApi } from '../support/harness';
import { startLocalS3 } from '../support/local-s3';
import { png } from '../media/media-helpers';

/** Brand logos stored in an S3 bucket (a local S3-compatible server) instead of local files. */
describe('brand logos on S3', () => {
  let s3: Awaited<ReturnType<typeof startLocalS3>>;
  let api: TestApi;

  beforeAll(async () => {
    s3 = await startLocalS3('lead-logos');
    api = await startTestApi(s3.env);
  });
  afterAll(async () => {
    await api?.stop();
    await s3?.stop();
  });

  it('a replaced logo leaves one object in the bucket, served from it; deleting it leaves none', async () => {
    expect(api.rt.infra.media.storage.kind).toBe('s3');
    const admin = await api.login();
    const client = await createClient(api, admin, 'S3 Logos');
    const brand = await api.call('POST', '/api/v1/brands', {
      token: client.triple,
      body: { brand_name: 'Bucket', slug: 'bucket' },
    });
    const prefix = `brand-logos/${brand.body.brand_id}/`;
    const upload = async (w: number, h: number) =>
      api.call('POST', `/api/v1/brands/${brand.body.brand_id}/logo`, {
        token: client.triple,
        body: { file: (await png(w, h)).toString('base64') },
      });

    const first = await upload(400, 300);
    expect(first.status).toBe(200);
    expect(await s3.keys(prefix)).toEqual([`${prefix}${first.body.logo_url.split('/').pop()}`]);
    const second = await upload(120, 200);
    expect(second.body.logo_url).not.toBe(first.body.logo_url);
    expect(await s3.keys(prefix)).toEqual([`${prefix}${second.body.logo_url.split('/').pop()}`]);

    const served = await fetch(second.body.logo_url);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/webp']);
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 120, 120]);
    expect((await fetch(first.body.logo_url)).status).toBe(404);

    expect(
      (await api.call('DELETE', `/api/v1/brands/${brand.body.brand_id}/logo`, { token: client.triple })).status,
    ).toBe(200);
    expect(await s3.keys(prefix)).toEqual([]);
  });
});

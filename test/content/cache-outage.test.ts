import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis, type StartedEngine } from '../../tools/devstack/engines';
import { startTestApi, type TestApi } from '../support/harness';
import { author, createSite, doc, publicGet } from './content-helpers';
import { BIN_DIR } from '../../src/lib/cache-dir';

/** Its own redis-server, so stopping it disturbs no other test file. */
describe('public reads while Redis is down', () => {
  let api: TestApi;
  let redis: StartedEngine;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-cache-outage-'));
    redis = await startRedis({ dataDir, binDir: BIN_DIR, progress: () => undefined });
    api = await startTestApi({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await api.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves them from MongoDB, logs the outage, and lets publishing go on', async () => {
    const admin = await api.login();
    const site = await createSite(api, admin, 'Outage', 'outage.example');
    const as = author(api, site.triple);
    const first = await as.create('posts', { slug: 'before', title: 'Before', body: doc('x') });
    await as.publish('posts', first.id);
    expect((await publicGet(api, 'outage.example', 'posts')).body.total).toBe(1);

    const { logger } = api.rt.infra;
    const warn = jest.spyOn(logger, 'warn');
    const error = jest.spyOn(logger, 'error');
    await redis.stop();

    const list = await publicGet(api, 'outage.example', 'posts');
    expect(list.status).toBe(200);
    expect(list.body.posts.map((p: any) => p.slug)).toEqual(['before']);
    const one = await publicGet(api, 'outage.example', 'posts/before');
    expect(one.body).toMatchObject({ slug: 'before', view_count: 1 });
    expect(
      (await publicGet(api, 'outage.example', 'posts/before', { 'if-none-match': one.headers.get('etag')! })).status,
    ).toBe(304);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ op: 'get' }),
      expect.stringMatching(/content cache unavailable/),
    );

    const second = await as.create('posts', { slug: 'during', title: 'During', body: doc('x') });
    await as.publish('posts', second.id);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ client_id: site.client_id }),
      expect.stringMatching(/not invalidated/),
    );
    expect((await publicGet(api, 'outage.example', 'posts')).body.posts.map((p: any) => p.slug)).toEqual([
      'during',
      'before',
    ]);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startRedis, type StartedEngine } from '../../tools/devstack/engines';
import { createClient, startTestApi, type TestApi } from '../support/harness';
import { BIN_DIR } from '../../src/lib/cache-dir';

/**
 * Redis runs with `maxmemory-policy noeviction` (docker-compose.yml, docs/operations.md "Redis memory"): past its
 * bound it refuses writes instead of dropping keys. This file runs its own redis-server, so that it can fill it
 * without disturbing other files.
 */
describe('a full Redis (noeviction)', () => {
  let api: TestApi;
  let redis: StartedEngine;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-full-'));
    redis = await startRedis({ dataDir, binDir: BIN_DIR, progress: () => undefined });
    api = await startTestApi({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await api.rt.engines.redis.config('SET', 'maxmemory', '0').catch(() => undefined);
    await api.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a request that must write to it 503 with Retry-After, and serves it again once there is room', async () => {
    const acme = await createClient(api, await api.login(), 'Full Redis');
    const engine = api.rt.engines.redis;
    const create = (key: string) =>
      api.call('POST', '/api/v1/dashboard/content/tags', {
        token: acme.triple,
        headers: { 'idempotency-key': key },
        body: { name: 'Opening hours' },
      });
    await engine.config('SET', 'maxmemory-policy', 'noeviction');
    // A bound below what it holds already: every write is refused from now on, nothing is evicted.
    await engine.config('SET', 'maxmemory', '1');
    const refused = await create(randomUUID());
    expect([refused.status, refused.body.detail]).toEqual([
      503,
      'Service temporarily unavailable: redis is out of memory',
    ]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    await engine.config('SET', 'maxmemory', '0');
    const k = randomUUID();
    const created = await create(k);
    expect(created.status).toBe(201);
    expect(await create(k)).toMatchObject({ status: 201, body: created.body });
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis, type StartedEngine } from '../../tools/devstack/engines';
import { canConnect } from '../../tools/devstack/ports';
import { createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { BIN_DIR } from '../../src/lib/cache-dir';

/** This file runs its own redis-server so it can stop and restart it without disturbing other files. */
describe('a Redis outage', () => {
  let api: TestApi;
  let redis: StartedEngine;
  let dataDir: string;
  let admin: string;
  const startOwnRedis = (port?: number) => startRedis({ dataDir, binDir: BIN_DIR, progress: () => undefined, port });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-outage-'));
    redis = await startOwnRedis();
    api = await startTestApi({ REDIS_URL: redis.url });
    admin = await api.login();
  });
  afterAll(async () => {
    // A failed assertion may leave Redis stopped; the API stops cleanly only with it back.
    if (!(await canConnect(Number(new URL(redis.url).port))))
      redis = await startOwnRedis(Number(new URL(redis.url).port));
    await api.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 naming redis while it is down, and recovers when it is back', async () => {
    expect((await api.call('GET', '/api/v1/system/health', { token: admin })).status).toBe(200);
    const tenant = await createClient(api, admin, 'Health Tenant');

    await redis.stop();
    const down = await api.call('GET', '/api/v1/system/health', { token: admin });
    expect(down.status).toBe(503);
    expect(down.body.detail).toBe('unavailable: redis');
    expect(down.body.checks.redis.status).toBe('down');
    expect(down.body.checks.mongodb.status).toBe('up');
    // The operator gets the driver's own words (they name the host and port); a tenant the state alone.
    expect(down.body.checks.redis.error).toEqual(expect.any(String));
    const seenByTenant = await api.call('GET', '/api/v1/system/health', { token: tenant.triple });
    expect(seenByTenant.status).toBe(503);
    expect(seenByTenant.body.detail).toBe('unavailable: redis');
    expect(seenByTenant.body.checks.redis).toEqual({ status: 'down', latency_ms: expect.any(Number) });
    expect(JSON.stringify(seenByTenant.body)).not.toContain(new URL(redis.url).port);
    const probe = await api.call('GET', '/readyz');
    expect(probe).toMatchObject({ status: 503, body: { detail: 'not ready' } });

    redis = await startOwnRedis(Number(new URL(redis.url).port));
    const healthy = await eventually(async () => {
      const res = await api.call('GET', '/api/v1/system/health', { token: admin });
      return res.status === 200 ? res : undefined;
    });
    expect(healthy.body.checks.redis.status).toBe('up');
  });
});

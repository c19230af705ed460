import { registry } from '../../src/lib/metrics';
import { createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { startTcpHold, type TcpHold } from '../support/tcp-hold';

/**
 * The document engine's pool is bounded, and so is the wait for it (docs/performance.md, "Load"): the API reaches
 * the engine through a hop the test holds, so the operations sent meanwhile keep every connection of a small pool
 * busy, deterministically; a request that needs one more is answered 503 with Retry-After once
 * MONGO_WAIT_QUEUE_TIMEOUT_MS has passed, instead of waiting for as long as the engine takes.
 */
describe("the document engine's pool", () => {
  let hop: TcpHold;
  let api: TestApi;
  let admin: string;
  beforeAll(async () => {
    hop = await startTcpHold(process.env.MONGODB_URI!);
    api = await startTestApi({
      MONGODB_URI: hop.url,
      MONGO_MAX_POOL_SIZE: '4',
      // Wide enough for start-up's index builds to share four connections on a loaded machine.
      MONGO_WAIT_QUEUE_TIMEOUT_MS: '3000',
    });
    admin = await api.login();
  });
  afterAll(async () => {
    hop?.release();
    await api?.stop();
    await hop?.close();
  });

  const pool = async (state: 'in_use' | 'waiting') => {
    const metric = await registry.getSingleMetric('lead_mongo_pool_connections')!.get();
    return metric.values.find((v) => v.labels.state === state)?.value ?? 0;
  };

  it('answers 503 with Retry-After when no connection frees in time, and recovers once the engine answers', async () => {
    const tenant = await createClient(api, admin, 'Pool Tenant');
    // Filtered by status, a list reads the records (its page and its count at once; without a filter it reads its
    // order from Redis). Different pages: identical reads in flight would share one engine read.
    const list = (page: number) =>
      api.call('GET', `/api/v1/dashboard/client/jobs?page=${page}&status_filter=queued`, { token: tenant.triple });
    // Four lists side by side (each reads its page and its count at once) open the pool's four connections.
    for (const res of await Promise.all([1, 2, 3, 4].map(list))) expect(res.status).toBe(200);

    hop.hold();
    const stuck = [1, 2, 3, 4].map(list);
    await eventually(async () => ((await pool('in_use')) === 4 && (await pool('waiting')) > 0 ? true : undefined));
    const refused = await list(5);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.detail).toBe('Service busy: no document-engine connection freed in time; retry later');

    hop.release();
    const answered = await Promise.all(stuck);
    // Each of those either got its connection in time (200) or was refused the same way; none is a 500.
    for (const res of answered) expect([200, 503]).toContain(res.status);
    const recovered = await eventually(async () => {
      const res = await list(1);
      return res.status === 200 ? res : undefined;
    });
    expect(recovered.body.total).toBe(0);
    expect(await pool('waiting')).toBe(0);
  });
});

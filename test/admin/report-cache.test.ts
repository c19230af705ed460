import { randomBytes } from 'node:crypto';
import { createRedis, connectRedis } from '../../src/lib/engines/redis';
import { createLogger } from '../../src/lib/logger';
import { createReportCache } from '../../src/admin/report-cache';

const logger = createLogger('silent');

/** A report that takes a while, counting how often it is computed. */
function slowReport() {
  const counter = { runs: 0 };
  const compute = async () => {
    counter.runs += 1;
    await new Promise((r) => setTimeout(r, 150));
    return { n: counter.runs };
  };
  return { counter, compute };
}

describe('report cache', () => {
  const prefix = `test:cache-${randomBytes(4).toString('hex')}:`;
  const redisA = createRedis(process.env.REDIS_URL!, prefix);
  const redisB = createRedis(process.env.REDIS_URL!, prefix);
  beforeAll(() => Promise.all([connectRedis(redisA), connectRedis(redisB)]));
  afterAll(() => {
    redisA.disconnect();
    redisB.disconnect();
  });

  it('computes a cold key once across two processes sharing Redis', async () => {
    const { counter, compute } = slowReport();
    const a = createReportCache(redisA, logger, { pollMs: 10 });
    const b = createReportCache(redisB, logger, { pollMs: 10 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).get('cold', 60, compute)));
    expect(counter.runs).toBe(1);
    // One process computed it (its ten requests share that answer); the other's ten waited and read it.
    expect(answers.filter((x) => x.cached)).toHaveLength(10);
    expect(answers.every((x) => x.value.n === 1)).toBe(true);
    expect(await redisA.ttl('report:cold')).toBeGreaterThan(50);
  });

  it('recomputes on refresh and keeps the new answer', async () => {
    const { counter, compute } = slowReport();
    const cache = createReportCache(redisA, logger);
    await cache.get('refresh', 60, compute);
    const refreshed = await cache.get('refresh', 60, compute, { refresh: true });
    expect(refreshed).toEqual({ value: { n: 2 }, cached: false });
    expect(await cache.get('refresh', 60, compute)).toEqual({ value: { n: 2 }, cached: true });
    expect(counter.runs).toBe(2);
  });

  it('computes directly when Redis is down, and passes a report failure on', async () => {
    const down = createRedis('redis://127.0.0.1:1', prefix);
    await connectRedis(down);
    try {
      const { counter, compute } = slowReport();
      const cache = createReportCache(down, logger);
      expect(await cache.get('down', 60, compute)).toEqual({ value: { n: 1 }, cached: false });
      expect(await cache.get('down', 60, compute)).toEqual({ value: { n: 2 }, cached: false });
      expect(counter.runs).toBe(2);
      await expect(
        cache.get('broken', 60, async () => Promise.reject(new Error('aggregation failed'))),
      ).rejects.toThrow('aggregation failed');
    } finally {
      down.disconnect();
    }
  });
});

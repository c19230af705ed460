import { eventually } from '../support/eventually';
import { createLogger } from '../../src/lib/logger';
import { startStreamDrain, storedSoFar, type DrainOptions, type StreamDrain } from '../../src/lib/stream-drain';
import { useTestApi } from '../support/harness';

/** The drain that moves the activity log and relay usage from Redis streams into MongoDB, on a stream of its own. */
describe('stream drain', () => {
  const ctx = useTestApi();
  const redis = () => ctx.api.rt.engines.redis;
  const append = (stream: string, n: number) => redis().xadd(stream, '*', 'e', JSON.stringify({ n }));
  let drain: StreamDrain | undefined;
  afterEach(async () => drain?.stop());
  /** A drain of `stream`'s numbers into `store`. */
  const drainOf = (stream: string, store: (docs: number[]) => Promise<void>, opts: DrainOptions) =>
    startStreamDrain(
      redis(),
      createLogger('silent'),
      { stream, group: 'test-drain', parse: (json) => (JSON.parse(json) as { n: number }).n, store },
      opts,
    );

  it('stores every record once, in order, and only then deletes it; a failed store is retried', async () => {
    const stream = 'test:drain-retry';
    for (let n = 0; n < 3; n++) await append(stream, n);
    expect(await storedSoFar(redis(), stream, 200)).toBe(false); // nobody drains it yet
    const stored: number[] = [];
    let failures = 1;
    drain = drainOf(
      stream,
      async (docs) => {
        if (failures-- > 0) throw new Error('engine down'); // the batch stays in the stream, pending
        stored.push(...docs);
      },
      { reclaimIdleMs: 400, lingerMs: 10 },
    );
    expect(await storedSoFar(redis(), stream, 20_000)).toBe(true);
    expect(stored).toEqual([0, 1, 2]);
    expect(await redis().xlen(stream)).toBe(0);
  });

  it('answers for the records appended before it asked, while more keep coming', async () => {
    const stream = 'test:drain-steady';
    const stored: number[] = [];
    drain = drainOf(stream, async (docs) => void stored.push(...docs), { lingerMs: 100 });
    let n = 0;
    const flow = setInterval(() => void append(stream, n++), 5);
    try {
      await eventually(async () => (stored.length >= 20 ? true : undefined), 10_000, 5); // the drain keeps up
      const before = n;
      expect(await storedSoFar(redis(), stream, 10_000)).toBe(true);
      expect(stored.length).toBeGreaterThanOrEqual(before - 1); // the append in flight when it asked may not count
    } finally {
      clearInterval(flow);
    }
  });
});

import { eventually } from '../support/eventually';
import { createViewCounter } from '../../src/content/view-counter';

describe('the grouped view counter', () => {
  it('gives every read its own exact count while grouping the increments', async () => {
    let stored = 10;
    const calls: number[] = [];
    const counter = createViewCounter(
      async (_key, by) => {
        calls.push(by);
        await new Promise((r) => setTimeout(r, 5));
        stored += by;
        return stored;
      },
      () => undefined,
    );
    const counts = await Promise.all(Array.from({ length: 25 }, () => counter.count('post')));
    expect([...counts].sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, i) => 11 + i));
    expect(stored).toBe(35);
    expect(calls[0]).toBe(1); // the first read goes at once; the rest wait for one grouped increment
    expect(calls.reduce((a, b) => a + b, 0)).toBe(25);
    expect(calls.length).toBeLessThan(25);
  });

  it('answers null when nothing matched and passes errors to every waiting read', async () => {
    const none = createViewCounter(
      async () => null,
      () => undefined,
    );
    expect(await Promise.all([none.count('x'), none.count('x')])).toEqual([null, null]);
    const failing = createViewCounter(
      async () => {
        throw new Error('database down');
      },
      () => undefined,
    );
    await expect(Promise.all([failing.count('y'), failing.count('y')])).rejects.toThrow('database down');
    const ok = createViewCounter(
      async (_k, by) => by,
      () => undefined,
    );
    expect(await ok.count('y')).toBe(1); // nothing is left behind after a failure
  });

  it('writes reads that do not wait in the same grouped increments, and reports their failures', async () => {
    const writes: [number, boolean][] = [];
    let fail = false;
    const errors: string[] = [];
    let reported: () => void = () => undefined;
    const failureReported = new Promise<void>((resolve) => (reported = resolve));
    const counter = createViewCounter(
      async (_key, by, wantTotal) => {
        writes.push([by, wantTotal]);
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error('write failed');
        return wantTotal ? 100 : null;
      },
      (err, key) => {
        errors.push(`${key}: ${(err as Error).message}`);
        reported();
      },
    );
    counter.add('p');
    counter.add('p');
    counter.add('p');
    expect(await counter.count('p')).toBe(100); // grouped with the two adds behind the first write
    expect(writes).toEqual([
      [1, false],
      [3, true],
    ]);
    fail = true;
    counter.add('q');
    await failureReported;
    expect(errors).toEqual(['q: write failed']);
  });

  it('writes every read it holds when flushed, at once, and waits for the writes (a stopping process)', async () => {
    const stored = new Map<string, number>();
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const counter = createViewCounter(
      async (key, by) => {
        if (key === 'slow') await slow;
        stored.set(key, (stored.get(key) ?? 0) + by);
        return null;
      },
      () => undefined,
      3_600_000, // background writes an hour away: only the flush writes them
    );
    counter.add('a');
    counter.add('a');
    counter.add('b');
    counter.add('slow');
    let flushed = false;
    const flushing = counter.flushAll().then(() => (flushed = true));
    await eventually(async () => (stored.get('a') === 2 && stored.get('b') === 1 ? true : undefined));
    expect(flushed).toBe(false); // 'slow' is still being written
    counter.add('slow'); // a read arriving during the flush is written by it too
    release();
    await flushing;
    expect(Object.fromEntries(stored)).toEqual({ a: 2, b: 1, slow: 2 });
  });

  it('delays writes of reads that do not wait, and writes at once when one waits', async () => {
    const writes: number[] = [];
    const counter = createViewCounter(
      async (_key, by) => {
        writes.push(by);
        return 7;
      },
      () => undefined,
      50,
    );
    counter.add('r');
    counter.add('r');
    // Within the 50 ms delay nothing is written yet. Timers fire in the order they fall due, so this 10 ms one runs
    // before the counter's delayed write however late a loaded machine runs both: an order, not a duration.
    await new Promise((r) => setTimeout(r, 10));
    expect(writes).toEqual([]);
    expect(await counter.count('r')).toBe(7); // a waiting read takes the delayed ones along at once
    expect(writes).toEqual([3]);
    counter.add('r');
    await eventually(async () => (writes.length === 2 ? true : undefined), 5_000, 5); // the delayed write
    expect(writes).toEqual([3, 1]);
  });
});

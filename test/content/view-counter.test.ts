import { createViewCounter } from '../../src/content/view-counter';

describe('the grouped view counter', () => {
  it('gives every read its own exact count while grouping the increments', async () => {
    let stored = 10;
    const calls: number[] = [];
    const counter = createViewCounter(async (_key, by) => {
      calls.push(by);
      await new Promise((r) => setTimeout(r, 5));
      stored += by;
      return stored;
    });
    const counts = await Promise.all(Array.from({ length: 25 }, () => counter.count('post')));
    expect([...counts].sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, i) => 11 + i));
    expect(stored).toBe(35);
    expect(calls[0]).toBe(1); // the first read goes at once; the rest wait for one grouped increment
    expect(calls.reduce((a, b) => a + b, 0)).toBe(25);
    expect(calls.length).toBeLessThan(25);
  });

  it('answers null when nothing matched and passes errors to every waiting read', async () => {
    const none = createViewCounter(async () => null);
    expect(await Promise.all([none.count('x'), none.count('x')])).toEqual([null, null]);
    const failing = createViewCounter(async () => {
      throw new Error('database down');
    });
    await expect(Promise.all([failing.count('y'), failing.count('y')])).rejects.toThrow('database down');
    const ok = createViewCounter(async (_k, by) => by);
    expect(await ok.count('y')).toBe(1); // nothing is left behind after a failure
  });
});

import { chunksOf, groupBy } from '../../src/lib/arrays';
import { IDS_PER_IN, idBatches } from '../../src/lib/id-batches';

describe('array helpers', () => {
  it('chunksOf cuts in order into parts of the size, the last shorter, none for nothing', () => {
    expect(chunksOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunksOf([1, 2, 3, 4], 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(chunksOf([], 3)).toEqual([]);
  });

  it('idBatches asks for at most IDS_PER_IN ids an $in, every id once', () => {
    const ids = Array.from({ length: IDS_PER_IN * 2 + 1 }, (_, i) => `id-${i}`);
    const parts = idBatches(ids);
    expect(parts.map((p) => p.length)).toEqual([IDS_PER_IN, IDS_PER_IN, 1]);
    expect(parts.flat()).toEqual(ids);
  });

  it('groupBy keeps the first-seen order of keys and of items within a key', () => {
    const grouped = groupBy(['b1', 'a1', 'b2', 'a2', 'c1'], (s) => s[0]);
    expect([...grouped]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });
});

// Tests for src/core/idRanges.ts: ranges follow log positions, and print as "380–419, 500".
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatRanges, idRanges, rangesFromIndexes } from '../../../src/core/idRanges';

describe('core/idRanges', () => {
  const ids = Array.from({ length: 600 }, (_, i) => i);

  it('compresses consecutive turns into ranges', () => {
    const subset = [...Array.from({ length: 40 }, (_, i) => 380 + i), 500];
    const ranges = idRanges(ids, subset);
    assert.deepEqual(ranges, [
      { from: 380, to: 419, count: 40 },
      { from: 500, to: 500, count: 1 },
    ]);
    assert.equal(formatRanges(ranges), '380–419, 500');
  });

  it('follows log positions, not numeric adjacency', () => {
    const order = [10, 3, 'b', 7, 'a'];
    assert.deepEqual(idRanges(order, [3, 'b', 7]), [{ from: 3, to: 7, count: 3 }]);
    assert.deepEqual(idRanges(order, [10, 7]), [
      { from: 10, to: 10, count: 1 },
      { from: 7, to: 7, count: 1 },
    ]);
    assert.equal(formatRanges(idRanges(order, new Set<string | number>(['a', 10, 3]))), '10–3, a');
  });

  it('ignores ids that are not in the log, and prints nothing for no ranges', () => {
    assert.deepEqual(idRanges([1, 2], [5]), []);
    assert.equal(formatRanges([]), '');
  });

  it('covers exactly the subset: counts add up and every range is contiguous', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 80 }), { maxLength: 60 }), (idx) => {
        const sorted = [...idx].sort((a, b) => a - b);
        const order = Array.from({ length: 81 }, (_, i) => `t${i}`);
        const ranges = rangesFromIndexes((i) => order[i], sorted);
        assert.equal(
          ranges.reduce((s, r) => s + r.count, 0),
          sorted.length,
        );
        const expanded = ranges.flatMap((r) => {
          const from = order.indexOf(r.from as string);
          return Array.from({ length: r.count }, (_, k) => from + k);
        });
        assert.deepEqual(expanded, sorted);
        for (let k = 1; k < ranges.length; k++) {
          assert.ok(order.indexOf(ranges[k].from as string) > order.indexOf(ranges[k - 1].to as string) + 1);
        }
      }),
    );
  });
});

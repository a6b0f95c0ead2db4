// Tests for src/core/intColumn.ts: on random writes at indexes within and across its chunks, IntColumn reads back
// what a plain array does (0 where nothing was written).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { IntColumn } from '../../../src/core/intColumn';

describe('core/IntColumn', () => {
  it('reads back what was written, 0 elsewhere, within and across chunks (property, seeded)', () => {
    const index = fc.oneof(fc.nat(200), fc.nat(70_000), fc.integer({ min: 65_530, max: 65_545 }), fc.nat(300_000));
    fc.assert(
      fc.property(fc.array(fc.tuple(index, fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })), { maxLength: 60 }), (writes) => {
        const column = new IntColumn(4);
        const model = new Map<number, number>();
        for (const [at, value] of writes) {
          column.set(at, value);
          model.set(at, value);
        }
        for (const [at, value] of model) assert.equal(column.get(at), value, `at ${at}`);
        for (const at of [0, 1, 65_535, 65_536, 131_072, 299_999, 400_000]) assert.equal(column.get(at), model.get(at) ?? 0, `at ${at}`);
      }),
      { seed: 13, numRuns: 200 },
    );
  });
});

// Tests for src/core/turnIdTable.ts: on random sequences of sets and deletes, over small integer ids, large and
// hostile numbers (2^40, negatives, -0, fractions, NaN) and strings ("5" is not 5), the table answers get, has
// and size as a Map with the same keys does; a far id costs no array; a value too
// large for the array is kept all the same.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { TurnId } from '../../../src/core/model';
import { TurnIdTable } from '../../../src/core/turnIdTable';

const ID_POOL: TurnId[] = [0, -0, 1, 2, 3, 5, 100, 1023, 1024, 1025, 4000, 9000, 2 ** 31, 2 ** 40, -1, 1.5, Number.NaN, '5', '0', 'a', ''];

const idArb = fc.oneof(fc.constantFrom(...ID_POOL), fc.nat({ max: 6000 }), fc.integer({ min: -5, max: 2 ** 33 }));
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id: idArb, value: fc.oneof(fc.nat({ max: 100_000 }), fc.constant(2 ** 31)) }),
  fc.record({ kind: fc.constant('delete' as const), id: idArb }),
);

describe('core/TurnIdTable', () => {
  it('answers as a Map with the same keys does, whatever the ids', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 400 }), (ops) => {
        const table = new TurnIdTable();
        const map = new Map<TurnId, number>();
        for (const op of ops) {
          if (op.kind === 'set') {
            table.set(op.id, op.value);
            map.set(op.id, op.value);
          } else {
            table.delete(op.id);
            map.delete(op.id);
          }
          assert.equal(table.size, map.size);
        }
        for (const id of [...ID_POOL, ...ops.map((op) => op.id)]) {
          assert.equal(table.get(id), map.get(id), `get ${String(id)}`);
          assert.equal(table.has(id), map.has(id), `has ${String(id)}`);
        }
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  it('keeps dense ids in an array, and a far one in the map without growing it', () => {
    const table = new TurnIdTable();
    for (let id = 0; id < 50_000; id++) table.set(id, id * 2);
    const dense = (t: TurnIdTable) => (t as unknown as { dense: Int32Array }).dense.length;
    assert.ok(dense(table) >= 50_000 && dense(table) <= 4 * 50_001 + 1024, `array of ${dense(table)}`);
    const before = dense(table);
    table.set(2 ** 30, 7);
    assert.equal(dense(table), before, 'a far id grows nothing');
    assert.equal(table.get(2 ** 30), 7);
    assert.equal(table.get(49_999), 99_998);
    assert.equal(table.size, 50_001);
    // An id first kept in the map, then reached by the array as it grows, is found and replaced once.
    const grown = new TurnIdTable();
    grown.set(3000, 1);
    for (let id = 0; id < 3000; id++) grown.set(id, 0);
    assert.equal(grown.get(3000), 1);
    grown.set(3000, 2);
    assert.equal(grown.get(3000), 2);
    assert.equal(grown.size, 3001);
    grown.delete(3000);
    assert.equal(grown.has(3000), false);
    assert.equal(grown.size, 3000);
  });
});

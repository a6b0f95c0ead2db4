// Tests for OffsetColumn (src/node/chunkedColumns.ts): every offset comes back as written, and a chunk takes 4
// bytes an entry while its offsets fit 32 bits past its first, 8 once one does not (below it, 2^32 or more past
// it, a fraction, -0).
import assert from 'node:assert/strict';
import { CHUNK, OffsetColumn } from '../../../src/node/chunkedColumns';

describe('OffsetColumn', () => {
  it('keeps offsets within 4 GB of their chunk’s first in 4 bytes each, over several chunks', () => {
    const column = new OffsetColumn();
    const count = 3 * CHUNK;
    for (let at = 0; at < count; at++) column.set(at, 2 ** 40 + 1_000 * at);
    for (let at = 0; at < count; at++) if (column.get(at) !== 2 ** 40 + 1_000 * at) assert.fail(`offset ${at}: ${column.get(at)}`);
    assert.equal(column.bytes, 3 * CHUNK * 4);
    column.set(count - 1, 2 ** 40 + 1_000 * (2 * CHUNK) + 0xffff_ffff); // the widest amount still fits
    assert.equal(column.bytes, 3 * CHUNK * 4);
  });

  const odd: [string, (base: number) => number][] = [
    ['2^32 past the chunk’s first', (base) => base + 2 ** 32],
    ['below the chunk’s first', (base) => base - 1],
    ['a fraction', (base) => base + 0.5],
    ['-0', () => -0],
  ];
  for (const [what, offset] of odd) {
    it(`widens a chunk to 8 bytes an entry for an offset ${what}, and keeps the offsets before it`, () => {
      const column = new OffsetColumn();
      const base = what === '-0' ? 0 : 5_000;
      for (let at = 0; at < 500; at++) column.set(at, base + at);
      column.set(CHUNK, 7); // a second chunk, left as it is
      column.set(500, offset(base));
      for (let at = 0; at < 500; at++) assert.equal(column.get(at), base + at, `offset ${at}`);
      assert.ok(Object.is(column.get(500), offset(base)), `${what} comes back as written`);
      assert.equal(column.get(CHUNK), 7);
      assert.equal(column.bytes, CHUNK * 8 + CHUNK * 4);
    });
  }
});

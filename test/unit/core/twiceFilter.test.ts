// Tests for src/core/twiceFilter.ts: a hash added twice is always let through (sharing stays exact), most hashes
// added once are not, the counters stop at 2 without spilling into their neighbours, and the table keeps to its
// bounds.
import * as assert from 'node:assert/strict';
import { TwiceFilter } from '../../../src/core/twiceFilter';

/** Deterministic 30-bit hashes (a small LCG). */
function hashes(n: number, seed: number): number[] {
  const out: number[] = [];
  let x = seed >>> 0;
  for (let k = 0; k < n; k++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out.push(x & 0x3fffffff);
  }
  return out;
}

describe('core/twiceFilter', () => {
  it('never says a hash added twice or more was added once', () => {
    const filter = new TwiceFilter(20_000);
    const once = hashes(20_000, 1);
    const twice = hashes(2_000, 2);
    for (const h of once) filter.add(h);
    for (const h of twice) {
      filter.add(h);
      filter.add(h);
    }
    const thrice = hashes(50, 3);
    for (let k = 0; k < 3; k++) for (const h of thrice) filter.add(h);
    assert.ok(twice.every((h) => filter.maybeTwice(h)));
    assert.ok(thrice.every((h) => filter.maybeTwice(h)));
    // With four counters a hash and two places each, few of those added once come through.
    const through = once.filter((h) => filter.maybeTwice(h)).length;
    assert.ok(through < once.length * 0.05, `${through} of ${once.length} added once came through`);
  });

  it('a hash added once, or never, is not let through in an empty neighbourhood', () => {
    const filter = new TwiceFilter(100);
    filter.add(12345);
    assert.equal(filter.maybeTwice(12345), false);
    assert.equal(filter.maybeTwice(54321), false);
    filter.add(12345);
    assert.equal(filter.maybeTwice(12345), true);
  });

  it('counters stop at 2 and do not spill into the counters beside them', () => {
    const filter = new TwiceFilter(0); // 4,096 counters: a hash's first place is its low 12 bits
    for (let k = 0; k < 10; k++) filter.add(1);
    assert.equal(filter.maybeTwice(1), true);
    // Counter 2 shares a byte with counter 1. Some of these hashes have their second place where hash 1 has its
    // own, so a count carried into counter 2 would let them through.
    let through = 0;
    for (let h = 2; h < 2 ** 30; h += 4096) if (filter.maybeTwice(h)) through++;
    assert.equal(through, 0);
  });

  it('is sized by the entries expected, within its bounds', () => {
    assert.equal(new TwiceFilter(0).bytes, 1024);
    assert.equal(new TwiceFilter(10_000).bytes, 16_384);
    assert.equal(new TwiceFilter(1e12).bytes, 2 ** 26);
  });
});

// Tests for src/core/twiceFilter.ts: a hash added twice is always let through (sharing stays exact), most hashes
// added once are not, the counters stop at 2 without spilling into their neighbours, and the table keeps to its
// bounds.
import * as assert from 'node:assert/strict';
import { PLACES, TwiceFilter, placeOf } from '../../../src/core/twiceFilter';

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
    // With four counters a hash and four places each, few of those added once come through.
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

  it('answers as an exact count at each place would: counters stop at 2 and do not spill into their neighbours', () => {
    const filter = new TwiceFilter(0); // 4,096 counters, so the hashes below fill a good part of them
    const counts = new Map<number, number>(); // the model: each place's exact count
    const add = (h: number): void => {
      filter.add(h);
      for (let k = 0; k < PLACES; k++) {
        const place = placeOf(h, k, filter.mask);
        counts.set(place, (counts.get(place) ?? 0) + 1);
      }
    };
    // Some hashes added many times (counters held at 2, where a carry would reach the next counter), some twice,
    // some once.
    const many = hashes(40, 5);
    for (let n = 0; n < 9; n++) for (const h of many) add(h);
    for (const h of hashes(300, 6)) {
      add(h);
      add(h);
    }
    for (const h of hashes(300, 7)) add(h);
    let through = 0;
    let checked = 0;
    for (const h of hashes(100_000, 8)) {
      let expected = true;
      for (let k = 0; k < PLACES; k++) if ((counts.get(placeOf(h, k, filter.mask)) ?? 0) < 2) expected = false;
      assert.equal(filter.maybeTwice(h), expected, `hash ${h}`);
      if (expected) through++;
      checked++;
    }
    // The probes tell a table that spills from one that does not: some come through, most do not.
    assert.ok(through > 100 && through < checked / 2, `${through} of ${checked} probes came through`);
  });

  it('gives each hash four different places, in any table', () => {
    for (const mask of [4095, 2 ** 20 - 1, 2 ** 28 - 1]) {
      for (const h of hashes(1000, 9)) {
        const places = new Set<number>();
        for (let k = 0; k < PLACES; k++) places.add(placeOf(h, k, mask));
        assert.equal(places.size, PLACES);
        assert.ok([...places].every((p) => p >= 0 && p <= mask));
      }
    }
  });

  it('is sized by the entries expected, within its bounds', () => {
    assert.equal(new TwiceFilter(0).bytes, 1024);
    assert.equal(new TwiceFilter(10_000).bytes, 16_384);
    assert.equal(new TwiceFilter(1e12).bytes, 2 ** 26);
  });
});

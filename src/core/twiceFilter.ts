// Which hashes may have been added twice or more, in a fixed table of small counters: sharing's first pass
// (analyze.ts) adds the hash of each form each unit names, and its second pass counts by name only the forms this
// filter lets through. A hash added twice is always let through; one added once is let through only when other
// hashes share both of its places (a false positive the count by name then sets right). Each hash has two places
// in the table and each place a counter of two bits that stops at 2, so at millions of forms the false positives
// stay few: with one place and a byte a counter, 1M generated turns sent 1.38M forms to the count by name, of which
// 110k were named twice. Pure: no I/O.

/** Counters per byte (two bits each). */
const PER_BYTE = 4;
/** Fewest and most counters the table has. */
const MIN_SLOTS = 4096;
const MAX_SLOTS = 2 ** 28;

export class TwiceFilter {
  private readonly counts: Uint8Array;
  private readonly mask: number;

  /** A table for about `entries` hashes added: four counters for each (two places each), within its bounds. */
  constructor(entries: number) {
    let slots = MIN_SLOTS;
    while (slots < entries * 4 && slots < MAX_SLOTS) slots *= 2;
    this.counts = new Uint8Array(slots / PER_BYTE);
    this.mask = slots - 1;
  }

  /** Counts `hash` (an integer) once more, at both its places. */
  add(hash: number): void {
    this.bump(hash & this.mask);
    this.bump(otherPlace(hash) & this.mask);
  }

  /** False only when `hash` was added at most once. */
  maybeTwice(hash: number): boolean {
    return this.count(hash & this.mask) >= 2 && this.count(otherPlace(hash) & this.mask) >= 2;
  }

  /** Bytes the table takes. */
  get bytes(): number {
    return this.counts.length;
  }

  private count(slot: number): number {
    return (this.counts[slot >>> 2] >>> ((slot & 3) * 2)) & 3;
  }

  private bump(slot: number): void {
    if (this.count(slot) < 2) this.counts[slot >>> 2] += 1 << ((slot & 3) * 2);
  }
}

/** A hash's second place: its bits mixed (murmur3's finaliser), so two hashes at one place seldom share the other. */
function otherPlace(hash: number): number {
  let h = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

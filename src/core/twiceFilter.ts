// Which hashes may have been added twice or more, in a fixed table of small counters: sharing's first pass
// (analyze.ts) adds the hash of each form each unit names, and its second pass counts by name only the forms this
// filter lets through. A hash added twice is always let through; one added once is let through only when other
// hashes share all of its places (a false positive the count by name then sets right). Each hash has four places
// in the table and each place a counter of two bits that stops at 2, so at millions of forms the false positives
// stay few: with one place and a byte a counter, 1M generated turns sent 1.38M forms to the count by name, of
// which 110k were named twice; with two places, 224k; with four, 154k. Pure: no I/O.

/** Counters per byte (two bits each). */
const PER_BYTE = 4;
/** Fewest and most counters the table has. */
const MIN_SLOTS = 4096;
const MAX_SLOTS = 2 ** 28;
/** Places a hash has in the table. */
export const PLACES = 4;

export class TwiceFilter {
  private readonly counts: Uint8Array;
  /** The table's counters less one (a power of two less one). */
  readonly mask: number;

  /** A table for about `entries` hashes added: four counters for each, within its bounds. */
  constructor(entries: number) {
    let slots = MIN_SLOTS;
    while (slots < entries * 4 && slots < MAX_SLOTS) slots *= 2;
    this.counts = new Uint8Array(slots / PER_BYTE);
    this.mask = slots - 1;
  }

  /** Counts `hash` (an integer) once more, at each of its places. */
  add(hash: number): void {
    const step = stepOf(hash);
    for (let k = 0; k < PLACES; k++) this.bump((hash + k * step) & this.mask);
  }

  /** False only when `hash` was added at most once. */
  maybeTwice(hash: number): boolean {
    const step = stepOf(hash);
    for (let k = 0; k < PLACES; k++) if (this.count((hash + k * step) & this.mask) < 2) return false;
    return true;
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

/**
 * The k-th of a hash's places in a table of `mask + 1` counters: the hash, then steps of its bits mixed. The step
 * is odd, so a hash's four places are four different counters in any table of at least four.
 */
export function placeOf(hash: number, k: number, mask: number): number {
  return (hash + k * stepOf(hash)) & mask;
}

/** A hash's bits mixed (murmur3's finaliser), odd: two hashes at one place seldom share their other places. */
function stepOf(hash: number): number {
  let h = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 1) | 1;
}

// The slot of each uuid a Claude Code transcript's records carry (UuidChain's numbering), with the uuid kept as its
// 16 bytes rather than as a string (issue 13: most of a Claude Code file's uuids are on records that are no turn's
// id, and their strings, 56 bytes each, were some 80 MB at 1M turns). A uuid in the form Claude Code writes
// (8-4-4-4-12 lowercase hexadecimal digits) is kept as four 32-bit words and made again as a string when asked
// for; any other string is kept as it is. Slots are found through a hash table of slot numbers, 4 bytes a slot,
// seeded per process so that no transcript can make its uuids collide on purpose. Pure: no I/O.
import { IntColumn } from '../core/intColumn';
import { hashOfText } from '../core/turnIdIndex';

/** The table holds at most this fraction of its slots. */
const MAX_LOAD = 0.75;
const FIRST_SLOTS = 64;
/** An empty place in the table (it holds slot numbers plus one). */
const EMPTY = 0;
const SEED = (Math.random() * 0x1_0000_0000) >>> 0;

/**
 * Reads a uuid in the form Claude Code writes into `words` (its 32 hexadecimal digits, 8 to a word); false, with
 * `words` left as they may be, for any other string.
 */
function readWords(text: string, words: Int32Array): boolean {
  if (text.length !== 36) return false;
  let word = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
      continue;
    }
    let nibble: number;
    if (c >= 0x30 && c <= 0x39) nibble = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) nibble = c - 0x61 + 10;
    else return false;
    word = (word << 4) | nibble;
    digits++;
    if (digits % 8 === 0) {
      words[digits / 8 - 1] = word;
      word = 0;
    }
  }
  return true;
}

/** A word's 8 hexadecimal digits. */
function hex(word: number): string {
  return (word >>> 0).toString(16).padStart(8, '0');
}

/** A seeded hash of four words, mixed (its low bits index the table). */
function hashOfWords(w0: number, w1: number, w2: number, w3: number): number {
  let h = Math.imul(SEED ^ w0, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ w1, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ w2, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ w3, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

export class UuidSlots {
  /** Four words a slot: its uuid's digits, for a slot whose uuid is in Claude Code's form. */
  private readonly words = new IntColumn(256);
  /** The uuid of each slot that is not in that form, as it is. */
  private readonly other = new Map<number, string>();
  /** Slot plus one at each place, EMPTY where there is none; its length is a power of two. */
  private table = new Int32Array(FIRST_SLOTS);
  private count = 0;
  /** The words of the uuid last looked up, when it is in Claude Code's form (keyIsWords). */
  private readonly key = new Int32Array(4);
  private keyIsWords = false;

  /** How many uuids have slots. */
  get size(): number {
    return this.count;
  }

  /** The slot of `uuid`, or undefined when it has none. */
  get(uuid: string): number | undefined {
    const stored = this.table[this.placeOf(uuid)];
    return stored === EMPTY ? undefined : stored - 1;
  }

  /** Gives `uuid`, which has no slot, the next one, and returns it. */
  add(uuid: string): number {
    const slot = this.count;
    if ((this.count + 1) / this.table.length > MAX_LOAD) this.grow();
    const place = this.placeOf(uuid); // reads the uuid's words into `key`
    if (this.keyIsWords) {
      for (let k = 0; k < 4; k++) this.words.set(4 * slot + k, this.key[k]);
    } else {
      this.other.set(slot, uuid);
    }
    this.table[place] = slot + 1;
    this.count++;
    return slot;
  }

  /** The uuid of `slot`, as a string equal to the one it was added with. */
  uuidAt(slot: number): string {
    const other = this.other.get(slot);
    if (other !== undefined) return other;
    const [a, b, c, d] = [0, 1, 2, 3].map((k) => hex(this.words.get(4 * slot + k)));
    return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
  }

  /** The place in the table holding `uuid`'s slot, or the empty place where it would go. */
  private placeOf(uuid: string): number {
    const mask = this.table.length - 1;
    const key = this.key;
    this.keyIsWords = readWords(uuid, key);
    if (this.keyIsWords) {
      let at = hashOfWords(key[0], key[1], key[2], key[3]) & mask;
      for (; this.table[at] !== EMPTY; at = (at + 1) & mask) if (this.holdsWords(this.table[at] - 1)) break;
      return at;
    }
    let at = hashOfText(uuid) & mask;
    while (this.table[at] !== EMPTY && this.other.get(this.table[at] - 1) !== uuid) at = (at + 1) & mask;
    return at;
  }

  /** Whether `slot` holds the uuid whose words are in `key`. */
  private holdsWords(slot: number): boolean {
    if (this.other.size > 0 && this.other.has(slot)) return false;
    const base = 4 * slot;
    const key = this.key;
    return (
      this.words.get(base) === key[0] &&
      this.words.get(base + 1) === key[1] &&
      this.words.get(base + 2) === key[2] &&
      this.words.get(base + 3) === key[3]
    );
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    const mask = this.table.length - 1;
    for (const stored of old) {
      if (stored === EMPTY) continue;
      const slot = stored - 1;
      const other = this.other.get(slot);
      const base = 4 * slot;
      let at =
        other !== undefined
          ? hashOfText(other) & mask
          : hashOfWords(this.words.get(base), this.words.get(base + 1), this.words.get(base + 2), this.words.get(base + 3)) & mask;
      while (this.table[at] !== EMPTY) at = (at + 1) & mask;
      this.table[at] = stored;
    }
  }
}

// The index CheckpointMemo keeps over a transcript's turns by id, without a Map entry or a copy of each id (issue
// 13: a Claude Code transcript's string ids took two Map entries a turn, about 80 bytes, 100 MB at 1.25M turns):
// - TurnKeyIndex: the first index of each id. A string id is found through a hash table of turn indexes, 4 bytes a
//   slot, whose keys are read back from the turns themselves (`keyAt`), with each id's hash kept by turn (4 bytes a
//   turn); any other id goes to a TurnIdTable (small integers in a typed array);
// - ValuesById: a non-negative integer per id (how many checkpoints claim it, the first turn answering it), kept at
//   the first turn with that id, 4 bytes a turn; the value of an id no turn has yet is kept in a Map, and moves
//   to the turn when one with that id comes (and back when that turn goes).
// Both behave as a Map with the same keys would. The hash is seeded per process, so no transcript can be made
// to collide on purpose; where an entry lands never changes a result. Pure: no I/O, no vscode.
import type { TurnId } from './model';
import { IntColumn } from './intColumn';
import { TurnIdTable } from './turnIdTable';

/** The hash table holds at most this fraction of its slots (linear probing stays short: 2.5 probes a hit). */
const MAX_LOAD = 0.75;
/** The table's first length (a power of two). */
const FIRST_SLOTS = 64;
/** No value (ValuesById's column holds values plus one). */
const NONE = 0;

/** The seed of the strings' hash, different in each process. */
const SEED = (Math.random() * 0x1_0000_0000) >>> 0;

/** A seeded FNV-1a hash of the string's code units, mixed (its low bits index a table). */
export function hashOfText(text: string): number {
  let h = SEED ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/**
 * The first index of each turn id. `keyAt(index)` gives the id of the turn at `index` (any value), and must give
 * the same while that index is held: an index is added once its turn is there, and deleted before it goes.
 */
export class TurnKeyIndex {
  /** Ids other than strings: numbers (small integers in a typed array), and whatever a malformed turn has. */
  private others = new TurnIdTable();
  /** Turn index plus one of each string id, 0 for an empty slot; its length is a power of two. */
  private slots = new Int32Array(FIRST_SLOTS);
  /**
   * The hash of each string id held, by its turn's index (4 bytes a turn): a probe compares it before reading an
   * id back from its turn, and the table grows without reading any. An id read back is a string somewhere in the
   * heap: placing 98,304 of them again, read back and hashed, held a Claude Code read 50–70 ms.
   */
  private readonly hashes = new IntColumn();
  private strings = 0;

  constructor(private readonly keyAt: (index: number) => unknown) {}

  get size(): number {
    return this.strings + this.others.size;
  }

  /** How many string ids the table holds before it must grow. */
  get capacity(): number {
    return Math.floor(this.slots.length * MAX_LOAD);
  }

  /**
   * Makes room for `more` string ids beyond those held, in one step: adding them then never grows the table a
   * doubling at a time, each of which places every id held again (20–40 ms at 125k ids, in one block).
   */
  reserve(more: number): void {
    let length = this.slots.length;
    while ((this.strings + more) / length > MAX_LOAD) length *= 2;
    if (length > this.slots.length) this.placeAll(length);
  }

  get(id: TurnId): number | undefined {
    if (typeof id !== 'string') return this.others.get(id);
    const at = this.slotOf(id, hashOfText(id) | 0);
    return this.slots[at] === NONE ? undefined : this.slots[at] - 1;
  }

  has(id: TurnId): boolean {
    return this.get(id) !== undefined;
  }

  /** Says turn `index` has `id`, which no turn held here has. */
  add(id: TurnId, index: number): void {
    if (typeof id !== 'string') {
      this.others.set(id, index);
      return;
    }
    if ((this.strings + 1) / this.slots.length > MAX_LOAD) this.grow();
    const hash = hashOfText(id) | 0; // as the column keeps it
    this.slots[this.slotOf(id, hash)] = index + 1;
    this.hashes.set(index, hash);
    this.strings++;
  }

  delete(id: TurnId): void {
    if (typeof id !== 'string') {
      this.others.delete(id);
      return;
    }
    let at = this.slotOf(id, hashOfText(id) | 0);
    if (this.slots[at] === NONE) return;
    this.slots[at] = NONE;
    this.strings--;
    // The entries after it in its run are placed again, so none is cut off from where its probe starts.
    const mask = this.slots.length - 1;
    for (at = (at + 1) & mask; this.slots[at] !== NONE; at = (at + 1) & mask) {
      const stored = this.slots[at];
      this.slots[at] = NONE;
      this.slots[this.emptySlot(this.hashes.get(stored - 1))] = stored;
    }
  }

  /** Forgets every id. */
  clear(): void {
    this.others = new TurnIdTable();
    this.slots = new Int32Array(FIRST_SLOTS);
    // The hashes stay: one is read only for a turn whose id is held, and is set when it is added. A new column would
    // allocate, and zero, every chunk up to the next turn added (the Claude Code reader clears its index of replies
    // at each compaction, and goes on at the turn it was at).
    this.strings = 0;
  }

  /** The slot holding `id` (whose hash is `hash`, as a signed integer), or the empty slot where it would go. */
  private slotOf(id: string, hash: number): number {
    const mask = this.slots.length - 1;
    let at = hash & mask;
    for (let stored = this.slots[at]; stored !== NONE; stored = this.slots[at]) {
      if (this.hashes.get(stored - 1) === hash && this.keyAt(stored - 1) === id) break;
      at = (at + 1) & mask;
    }
    return at;
  }

  /** The first empty slot on the probe of `hash`: where an id held, not in the table now, is placed again. */
  private emptySlot(hash: number): number {
    const mask = this.slots.length - 1;
    let at = hash & mask;
    while (this.slots[at] !== NONE) at = (at + 1) & mask;
    return at;
  }

  private grow(): void {
    this.placeAll(this.slots.length * 2);
  }

  /** Places every id held again, in a table of `length` slots (a power of two): by their hashes kept, no id read. */
  private placeAll(length: number): void {
    const old = this.slots;
    this.slots = new Int32Array(length);
    for (const stored of old) if (stored !== NONE) this.slots[this.emptySlot(this.hashes.get(stored - 1))] = stored;
  }
}

/**
 * A non-negative integer per turn id: kept at the first turn with the id (a column, through a TurnKeyIndex), or
 * in a Map while no turn has it. The owner tells it when a turn becomes the first with its id (adopt) and when
 * it stops being one (release).
 */
export class ValuesById {
  /** Value plus one at each first turn of an id, NONE where it has none. */
  private readonly column = new IntColumn();
  private readonly loose = new Map<TurnId, number>();

  constructor(private readonly firstIndexOf: TurnKeyIndex) {}

  get(id: TurnId): number | undefined {
    const at = this.firstIndexOf.get(id);
    if (at === undefined) return this.loose.get(id);
    return this.atTurn(at);
  }

  has(id: TurnId): boolean {
    return this.get(id) !== undefined;
  }

  /** The value of the id whose first turn is `index`. */
  atTurn(index: number): number | undefined {
    const stored = this.column.get(index);
    return stored === NONE ? undefined : stored - 1;
  }

  set(id: TurnId, value: number): void {
    const at = this.firstIndexOf.get(id);
    if (at === undefined) this.loose.set(id, value);
    else this.store(at, value + 1);
  }

  delete(id: TurnId): void {
    const at = this.firstIndexOf.get(id);
    if (at === undefined) this.loose.delete(id);
    else this.store(at, NONE);
  }

  /** Turn `index` is now the first with `id`: the value kept for the id without a turn moves to it. */
  adopt(id: TurnId, index: number): void {
    const value = this.loose.size > 0 ? this.loose.get(id) : undefined;
    this.store(index, value === undefined ? NONE : value + 1);
    if (value !== undefined) this.loose.delete(id);
  }

  /** Turn `index`, the first with `id`, goes: its value is kept for the id without a turn. */
  release(id: TurnId, index: number): void {
    const value = this.atTurn(index);
    if (value === undefined) return;
    this.loose.set(id, value);
    this.store(index, NONE);
  }

  private store(index: number, stored: number): void {
    if (stored !== NONE || this.column.get(index) !== NONE) this.column.set(index, stored);
  }
}

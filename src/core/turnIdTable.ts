// A map from turn ids to small non-negative integers (a turn's index), for numeric ids: TurnKeyIndex keeps these
// here (turnIdIndex.ts), and the canonical reader its turns by id. Ids that are small non-negative integers (a
// canonical transcript's 0, 1, 2…) are kept in a typed array, 4 bytes an id, rather than in a Map (about 50 bytes an entry: 150 MB for a 3M-turn transcript); any other id
// (a string, a negative, fractional or far larger number) is kept in a Map. The array is never longer than four
// times the most entries held plus 1,024, so a hostile id like 2^40 costs one Map entry, not memory. It behaves
// as a Map with the same keys would (0 and -0 are one key), and is pure: no I/O, no vscode.
import type { TurnId } from './model';

/** The array's length, at most this many times the entries held, plus DENSE_SLACK. */
const DENSE_PER_ENTRY = 4;
const DENSE_SLACK = 1024;
/** Values kept in the array (stored plus one, 0 meaning none) are below this; larger ones go to the Map. */
const DENSE_VALUE_LIMIT = 0x7fff_fffe;

export class TurnIdTable {
  /** dense[id] is the value plus one for a small integer id, 0 when it has none there. */
  private dense = new Int32Array(0);
  private denseCount = 0;
  private readonly other = new Map<TurnId, number>();

  get size(): number {
    return this.denseCount + this.other.size;
  }

  get(id: TurnId): number | undefined {
    if (this.inDense(id)) {
      const stored = this.dense[id as number];
      if (stored !== 0) return stored - 1;
    }
    return this.other.size > 0 ? this.other.get(id) : undefined;
  }

  has(id: TurnId): boolean {
    return this.get(id) !== undefined;
  }

  set(id: TurnId, value: number): void {
    const fits = Number.isInteger(value) && value >= 0 && value < DENSE_VALUE_LIMIT;
    if (fits && this.canHold(id)) {
      const at = id as number;
      if (this.dense[at] === 0) this.denseCount++;
      this.dense[at] = value + 1;
      if (this.other.size > 0) this.other.delete(id); // kept there before the array reached it
      return;
    }
    this.deleteDense(id);
    this.other.set(id, value);
  }

  delete(id: TurnId): void {
    this.deleteDense(id);
    if (this.other.size > 0) this.other.delete(id);
  }

  /** Whether `id` is an index into the array as it is now. */
  private inDense(id: TurnId): boolean {
    return typeof id === 'number' && id >= 0 && id < this.dense.length && Number.isInteger(id);
  }

  /** Whether `id` has a place in the array, growing it when it may. */
  private canHold(id: TurnId): boolean {
    if (this.inDense(id)) return true;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) return false;
    const limit = DENSE_PER_ENTRY * (this.size + 1) + DENSE_SLACK;
    if (id >= limit) return false;
    const grown = new Int32Array(Math.min(limit, Math.max(2 * this.dense.length, id + 1, DENSE_SLACK)));
    grown.set(this.dense);
    this.dense = grown;
    return true;
  }

  private deleteDense(id: TurnId): void {
    if (!this.inDense(id)) return;
    const at = id as number;
    if (this.dense[at] === 0) return;
    this.dense[at] = 0;
    this.denseCount--;
  }
}

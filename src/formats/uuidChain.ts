// The Claude Code reader's index of record uuids, in columns: for each uuid, the line of its first record, that
// record's parentUuid, whether it is a compact_boundary, and the turn the uuid was read into; and for each record
// with a uuid, its line. This is all a checkpoint's claim reads of the records (the parentUuid walk, the preserved
// messages, the last message before a boundary), so a file read once lets its records go as they are read
// (ClaudeCodeReader). Typed arrays instead of a Map of records: a record held as a parsed object with its fields
// and three uuid strings took about 720 bytes; here a uuid in Claude Code's form takes some 50 bytes (UuidSlots).
// Pure: no I/O.

import { IntColumn } from '../core/intColumn';
import { UuidSlots } from './uuidSlots';

/** No slot: a record with no parentUuid, a uuid with no turn. */
const NONE = -1;
/** A parentUuid whose uuid had no record yet when its record was read: kept as text (parentLater). */
const LATER = -2;

/** A step of walkBack: the first record of a uuid on the chain. */
export interface ChainStep {
  /** The turn the uuid was read into, if any. */
  turn: number | undefined;
  line: number;
  /** Whether the record is a compact_boundary. */
  boundary: boolean;
  /** Whether the uuid is the walk's `until`. */
  isUntil: boolean;
}

/** What lastMessageBefore found: a record whose uuid was read into a turn. */
export interface MessageRecord {
  uuid: string;
  line: number;
}

export class UuidChain {
  /** The slot of each uuid: the order in which the uuids' first records came. */
  private readonly slots = new UuidSlots();
  /** Per slot: the first record's line, its parentUuid's slot (or NONE, or LATER), its turn (or NONE). */
  private readonly firstLine = new IntColumn();
  private readonly parentSlot = new IntColumn();
  private readonly turn = new IntColumn();
  /** Per slot, 1 when the first record is a compact_boundary. */
  private readonly boundary = new IntColumn();
  /** The parentUuid of the slots marked LATER. */
  private readonly parentLater = new Map<number, string>();
  /** Per record with a uuid, in line order: its line and its uuid's slot. */
  private readonly recordLine = new IntColumn();
  private readonly recordSlot = new IntColumn();
  private records = 0;
  /**
   * The uuid of the record added last and its slot. The reader asks for that uuid again (its turn, then to set
   * it), and the next record's parentUuid is most often that uuid: four lookups of five a record, each reading the
   * uuid's 36 characters and probing the table, were about 6% of the instructions of a Claude Code file's read
   * (docs/performance-history.md, "A Claude Code claim joined as read…").
   */
  private lastUuid: string | undefined;
  private lastSlot = NONE;

  /**
   * A record with this uuid at this line (records come in line order). The first record of a uuid is the one its
   * fields are kept from: later copies never replace it.
   */
  addRecord(uuid: string, line: number, parentUuid: string | undefined, isBoundary: boolean): void {
    let slot = this.slotOf(uuid);
    if (slot === undefined) {
      slot = this.slots.add(uuid);
      this.firstLine.set(slot, line);
      this.turn.set(slot, NONE);
      this.boundary.set(slot, isBoundary ? 1 : 0);
      const parent = parentUuid === undefined ? NONE : (this.slotOf(parentUuid) ?? LATER);
      this.parentSlot.set(slot, parent);
      if (parent === LATER) this.parentLater.set(slot, parentUuid!);
    }
    this.lastUuid = uuid;
    this.lastSlot = slot;
    this.recordLine.set(this.records, line);
    this.recordSlot.set(this.records, slot);
    this.records++;
  }

  /** The line of the uuid's first record, or undefined when no record has it. */
  lineOf(uuid: string): number | undefined {
    const slot = this.slotOf(uuid);
    return slot === undefined ? undefined : this.firstLine.get(slot);
  }

  /**
   * Walks the parentUuid chain back from `start`, by each uuid's first record: `visit` is given each step's
   * record (the uuid's turn, if any, its line, whether it is a compact_boundary, and whether it is `until`) and
   * returns false to stop there. The walk also stops at a uuid with no record, or when it comes round to a uuid
   * it walked. No uuid is made a string on the way, nor kept (a walk may pass a million records).
   */
  walkBack(start: string, visit: (step: ChainStep) => boolean, until?: string): void {
    const last = until === undefined ? undefined : this.slots.get(until);
    // A uuid whose parent's record came before its own has a lower slot, so the walk can only come round again
    // through a parent whose record came later (or a uuid its own parent): remembering where it took one of those
    // is enough to stop there.
    // (A uuid walked again before that gives the same step again: what visit gathers is the same.)
    const laterFrom = new Set<number>();
    let slot = this.slots.get(start);
    while (slot !== undefined) {
      const turn = this.turn.get(slot);
      const step = {
        turn: turn === NONE ? undefined : turn,
        line: this.firstLine.get(slot),
        boundary: this.boundary.get(slot) === 1,
        isUntil: slot === last,
      };
      if (!visit(step)) return;
      const parent = this.parentSlot.get(slot);
      if (parent === NONE) return;
      if (parent !== LATER && parent < slot) {
        slot = parent;
        continue;
      }
      // A parent whose record came later, or the uuid itself.
      if (laterFrom.has(slot)) return;
      laterFrom.add(slot);
      slot = parent === LATER ? this.slots.get(this.parentLater.get(slot)!) : parent;
    }
  }

  /** The turn the uuid was read into, if any. */
  turnOf(uuid: string): number | undefined {
    const slot = this.slotOf(uuid);
    if (slot === undefined) return undefined;
    const turn = this.turn.get(slot);
    return turn === NONE ? undefined : turn;
  }

  /** Says the uuid was read into turn `index`; its record must have been added. */
  setTurn(uuid: string, index: number): void {
    const slot = this.slotOf(uuid);
    if (slot === undefined) throw new Error(`no record has the uuid ${uuid}`);
    this.turn.set(slot, index);
  }

  /** The last record before line `lineNumber` whose uuid was read into a turn before `limit`. */
  lastMessageBefore(lineNumber: number, limit: number): MessageRecord | undefined {
    let found = NONE;
    for (let r = 0; r < this.records; r++) {
      if (this.recordLine.get(r) >= lineNumber) break;
      const t = this.turn.get(this.recordSlot.get(r));
      if (t !== NONE && t < limit) found = r;
    }
    return found === NONE ? undefined : { uuid: this.slots.uuidAt(this.recordSlot.get(found)), line: this.recordLine.get(found) };
  }

  /** The slot of `uuid`, or undefined when it has none. */
  private slotOf(uuid: string): number | undefined {
    return uuid === this.lastUuid ? this.lastSlot : this.slots.get(uuid);
  }
}

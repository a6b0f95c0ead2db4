// The Claude Code reader's index of record uuids, in columns: for each uuid, the line of its first record, that
// record's parentUuid, whether it is a compact_boundary, and the turn the uuid was read into; and for each record
// with a uuid, its line. This is all a checkpoint's claim reads of the records (the parentUuid walk, the preserved
// messages, the last message before a boundary), so a file read once lets its records go as they are read
// (ClaudeCodeReader). Typed arrays instead of a Map of records: a record held as a parsed object with its fields
// and three uuid strings took about 720 bytes; here a uuid takes its string and some 35 bytes.
// Pure: no I/O.

import { IntColumn } from '../core/intColumn';
import { TurnKeyIndex } from '../core/turnIdIndex';

/** No slot: a record with no parentUuid, a uuid with no turn. */
const NONE = -1;
/** A parentUuid whose uuid had no record yet when its record was read: kept as text (parentLater). */
const LATER = -2;

/** What lastMessageBefore found: a record whose uuid was read into a turn. */
export interface MessageRecord {
  uuid: string;
  line: number;
}

export class UuidChain {
  /** The slot of each uuid: the order in which the uuids' first records came. */
  private readonly uuids: string[] = [];
  /** The slot of each uuid, found through the uuids themselves (no Map entry a uuid). */
  private readonly slotOf = new TurnKeyIndex((slot) => this.uuids[slot]);
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
   * A record with this uuid at this line (records come in line order). The first record of a uuid is the one its
   * fields are kept from: later copies never replace it.
   */
  addRecord(uuid: string, line: number, parentUuid: string | undefined, isBoundary: boolean): void {
    let slot = this.slotOf.get(uuid);
    if (slot === undefined) {
      slot = this.uuids.length;
      this.uuids.push(uuid);
      this.slotOf.add(uuid, slot);
      this.firstLine.set(slot, line);
      this.turn.set(slot, NONE);
      this.boundary.set(slot, isBoundary ? 1 : 0);
      const parent = parentUuid === undefined ? NONE : (this.slotOf.get(parentUuid) ?? LATER);
      this.parentSlot.set(slot, parent);
      if (parent === LATER) this.parentLater.set(slot, parentUuid!);
    }
    this.recordLine.set(this.records, line);
    this.recordSlot.set(this.records, slot);
    this.records++;
  }

  /** The line of the uuid's first record, or undefined when no record has it. */
  lineOf(uuid: string): number | undefined {
    const slot = this.slotOf.get(uuid);
    return slot === undefined ? undefined : this.firstLine.get(slot);
  }

  /** Whether the uuid's first record is a compact_boundary (false when no record has it). */
  isBoundary(uuid: string): boolean {
    const slot = this.slotOf.get(uuid);
    return slot !== undefined && this.boundary.get(slot) === 1;
  }

  /** The parentUuid of the uuid's first record. */
  parentOf(uuid: string): string | undefined {
    const slot = this.slotOf.get(uuid);
    if (slot === undefined) return undefined;
    const parent = this.parentSlot.get(slot);
    if (parent === NONE) return undefined;
    return parent === LATER ? this.parentLater.get(slot) : this.uuids[parent];
  }

  /** The turn the uuid was read into, if any. */
  turnOf(uuid: string): number | undefined {
    const slot = this.slotOf.get(uuid);
    if (slot === undefined) return undefined;
    const turn = this.turn.get(slot);
    return turn === NONE ? undefined : turn;
  }

  /** Says the uuid was read into turn `index`; its record must have been added. */
  setTurn(uuid: string, index: number): void {
    const slot = this.slotOf.get(uuid);
    if (slot === undefined) throw new Error(`no record has the uuid ${uuid}`);
    this.turn.set(slot, index);
  }

  /** The last record before line `lineNumber` whose uuid was read into a turn before `limit`. */
  lastMessageBefore(lineNumber: number, limit: number): MessageRecord | undefined {
    let found: MessageRecord | undefined;
    for (let r = 0; r < this.records; r++) {
      const line = this.recordLine.get(r);
      if (line >= lineNumber) break;
      const slot = this.recordSlot.get(r);
      const t = this.turn.get(slot);
      if (t !== NONE && t < limit) found = { uuid: this.uuids[slot], line };
    }
    return found;
  }
}

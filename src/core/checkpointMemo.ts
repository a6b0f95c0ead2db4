// A file's memo of checkpoint analyses, kept between analyses of its growing snapshots (core/analyze.ts), so a
// re-analysis after lines are appended reuses each checkpoint whose inputs the append cannot change. A
// checkpoint's analysis depends only on the turns before it, its own record, the options, the token counts and
// which of those earlier turns any checkpoint claims; the memo keeps what tells each of them unchanged, cheaply:
// - the turns: the Turn objects last analysed, compared by identity (readers never modify a Turn they returned),
//   or, for a new object (the file read anew: a rewritten document, a new inode, a .gz that grew), field by field
//   as plain data (sameTurn), the new one then taking the old one's place. The first index that differs drops
//   every analysis whose prefix reaches it;
// - the checkpoint: a structural copy of its record, compared field by field; or, for a record its reader sealed
//   (core/sealedRecord.ts: deep-frozen, so it cannot have changed), the record itself, and the same object again
//   needs no comparison;
// - which turns any checkpoint claims: a count per id, updated checkpoint by checkpoint; an id that becomes
//   claimed or unclaimed drops every analysis whose prefix holds a turn with that id;
// - the options, token cache (by identity) and summary count: kept with each analysis, compared by analyze.
// It also keeps the indexes analyze needs over all the turns (first index of each id, first result answering each
// call), extended by the appended turns rather than rebuilt; they keep no id of their own, only turn indexes
// (turnIdIndex.ts). It holds at most the current checkpoints' analyses (shared with the last Analysis), a reference
// per turn and those indexes; it never changes a result (only what it costs), and is pure: no I/O, no vscode.
import type { Checkpoint, CheckpointAnalysis, JudgedTurns, TokenCache, Turn, TurnId } from './model';
import { isSealed } from './sealedRecord';
import { runSteps } from './steps';
import { TurnKeyIndex, ValuesById } from './turnIdIndex';

/** What a kept analysis was made with, besides the turns and the checkpoint record. */
export interface MemoInputs {
  ratioFloor: number;
  threshold: number;
  nearBudgetFraction: number;
  tokenCache: TokenCache;
  /** The summary's token count the analysis used. */
  summaryTokens: number;
}

/**
 * A checkpoint's analysis as the memo keeps it. Only a checkpoint at a valid position is kept, and analysing
 * one adds no problem, so there are none to give again.
 */
export interface KeptAnalysis {
  analysis: CheckpointAnalysis;
  /**
   * Its turns as judged for it (statuses, evidence and reasons; the results as the analysis shows them). A
   * judgement reads neither the token counts nor the ratio floor nor the near-budget fraction, so an analysis with
   * another encoding, ratio floor or fraction, and the same coverage threshold, takes it as it is (core/analyze.ts,
   * judgementOf); one with another threshold takes it re-weighed (core/reweigh.ts).
   */
  judged: JudgedTurns;
  /** How many turns precede the checkpoint (its prefix). */
  before: number;
  inputs: MemoInputs;
}

/** The indexes over a transcript's turns that analyze reads (see CheckpointMemo.sync). */
export interface TurnIndexes {
  /** Index of each turn id (first occurrence). */
  indexOfId: { get(id: TurnId): number | undefined };
  /**
   * The index of the first turn with the id of the turn at `index` (that index itself, unless an earlier turn has
   * the id); undefined for a malformed turn. A turn's entries below are found by this index, with no lookup.
   */
  firstOf(index: number): number | undefined;
  /**
   * For each turn whose calls are answered by result turns of their own, the index of the first such result: by
   * the turn's id, or (atTurn) by the index firstOf gives.
   */
  firstAnswer: { get(id: TurnId): number | undefined; atTurn(first: number): number | undefined };
  /** Ids claimed by any checkpoint: by id, or (atTurn: how many claim it) by the index firstOf gives. */
  claimedByAny: { has(id: TurnId): boolean; atTurn(first: number): number | undefined };
}

interface Slot {
  /** A structural copy of the checkpoint record (the value itself when it is not an object), or the sealed record. */
  record: unknown;
  /** The ids this checkpoint adds to `claims`. */
  claims: readonly TurnId[];
  kept?: KeptAnalysis;
}

/** Records nested deeper than this are never taken as unchanged (and not copied further). */
const MAX_DEPTH = 6;
/** Stands for what could not be copied: equal to nothing, itself included. */
const UNCOMPARABLE = Symbol('uncomparable');
/** syncInSteps yields about this often (turns indexed, ids claimed). */
const SYNC_STEP = 1024;

export class CheckpointMemo {
  /** The turns of the snapshot last synced, by reference (a copy of its array, or the array itself: oneSnapshot). */
  private turns: unknown[] = [];
  /**
   * True for a memo of one snapshot whose array nothing changes (one analysis of a file read once): it keeps that
   * array itself rather than a copy (8 bytes a turn: 24 MB at 3M turns), and refuses any other.
   */
  private readonly oneSnapshot: boolean;
  /** How many turns the last sync saw (a oneSnapshot memo's array must keep that length). */
  private synced = 0;
  /** The first index of each id, read back from the turns indexed (the memo's own array holds them all). */
  private readonly indexOfId = new TurnKeyIndex((index) => (this.turns[index] as Turn).id);
  /** 1 for each turn indexed that is not the first with its id, or is not an object. */
  private notFirst = new Uint8Array(64);
  private readonly firstAnswer = new ValuesById(this.indexOfId);
  /** How many checkpoints (with repeats) claim each id. */
  private readonly claims = new ValuesById(this.indexOfId);
  /** What sync gives analyze. */
  private readonly indexes: TurnIndexes = {
    indexOfId: this.indexOfId,
    firstOf: (index) => this.firstOf(index),
    firstAnswer: this.firstAnswer,
    claimedByAny: this.claims,
  };
  private slots: Slot[] = [];
  /** Every turn before `countedThrough` that some checkpoint claims has its count in `countedIn`. */
  private countedThrough = 0;
  private countedIn: TokenCache | undefined;

  /**
   * `oneSnapshot`: the memo is synced only with one array of turns, which nothing changes after, so it keeps the
   * array rather than a copy; a sync with another array, or with that one at another length, throws.
   */
  constructor(options: { oneSnapshot?: boolean } = {}) {
    this.oneSnapshot = options.oneSnapshot === true;
  }

  /**
   * Brings the memo up to `turns` and `checkpoints`: drops the analyses a change reaches, extends the indexes by
   * the appended turns, and returns them. Costs one comparison per turn and per checkpoint field (claimed ids
   * included; none for a sealed record given again), plus the indexing of the turns from the first new or
   * replaced one. Never throws on malformed input.
   */
  sync(turns: readonly unknown[], checkpoints: readonly unknown[]): TurnIndexes {
    return runSteps(this.syncInSteps(turns, checkpoints));
  }

  /**
   * sync, in steps: yields about every SYNC_STEP turns or claimed ids indexed, so a shell can run it in time
   * slices. Nothing else may use the memo until it is done.
   */
  *syncInSteps(turns: readonly unknown[], checkpoints: readonly unknown[]): Generator<void, TurnIndexes, void> {
    if (this.oneSnapshot && this.synced > 0 && (turns !== this.turns || turns.length !== this.synced))
      throw new Error('a memo of one snapshot was synced with another');
    const old = this.turns;
    const common = Math.min(old.length, turns.length);
    let same = 0;
    while (same < common) {
      same = sameObjectsFrom(old, turns, same, common);
      if (same === common) break;
      // A file read anew gives new turns for the same records: one equal to the old field by field is the same
      // turn (analyze reads nothing else of it), and takes its place, so the next sync finds it by identity.
      if (!sameTurn(old[same], turns[same])) break;
      old[same] = turns[same];
      if (same % SYNC_STEP === 0) yield;
      same++;
    }
    if (same < old.length) {
      // A turn seen before changed (a reader that rewrites its last turn makes a new one), or the snapshot is
      // shorter: what rests on it goes, and the indexes forget the turns from there (a turn's id and call do not
      // change: it is never modified once returned), to be indexed again as they are now.
      this.dropFrom(same);
      for (let i = same; i < old.length; i++) this.unindex(old[i], same);
      old.length = same;
    }
    const grows = this.turns.length < turns.length;
    // Turns with string ids (a Claude Code file's uuids) get the index's room for all the new ones at once, not a
    // doubling at a time, each of which would hold a slice for tens of ms at 100k turns.
    const appended = turns[this.turns.length];
    if (grows && appended && typeof appended === 'object' && typeof (appended as Turn).id === 'string') {
      this.indexOfId.reserve(turns.length - this.turns.length);
    }
    for (let i = this.turns.length; i < turns.length; i++) {
      if (i % SYNC_STEP === 0) yield;
      this.index(turns[i], i);
    }
    // Grown a turn at a time (so the indexes never hold a turn it does not), it holds room for up to half as many
    // again: kept at its length instead when it was empty or more than doubled (a reference a turn, 24 MB for 3M
    // turns, not up to 36 MB), or not at all (oneSnapshot). A few turns appended keep the room, so that each append
    // is not a copy of every reference (3 ms at 125k turns) and a push past the room another.
    if (grows && this.oneSnapshot) this.turns = turns as unknown[];
    else if (grows && this.turns.length > 2 * this.synced) this.turns = this.turns.slice();
    this.synced = turns.length;

    // Whether each id a changed checkpoint claimed or claims was claimed by any checkpoint before; not kept when
    // nothing is kept that a change could drop (a first sync: a map of every claimed id would cost the most then).
    const droppable = this.countedThrough > 0 || this.slots.some((slot) => slot.kept !== undefined);
    const touched = droppable ? new Map<TurnId, boolean>() : undefined;
    const count = Math.max(this.slots.length, checkpoints.length);
    for (let i = 0; i < count; i++) {
      const slot = this.slots[i];
      const cp = i < checkpoints.length ? checkpoints[i] : undefined;
      if (slot && i < checkpoints.length && sameRecord(slot.record, cp)) continue;
      yield;
      if (slot) for (const id of slot.claims) this.addClaim(id, -1, touched);
      if (i >= checkpoints.length) continue;
      // A sealed record cannot change: it is its own copy.
      const record = isSealed(cp) ? cp : copyRecord(cp, 0);
      const claims = claimsOf(cp, record);
      for (let k = 0; k < claims.length; k++) {
        if (k % SYNC_STEP === SYNC_STEP - 1) yield;
        this.addClaim(claims[k], 1, touched);
      }
      this.slots[i] = { record, claims };
    }
    this.slots.length = checkpoints.length;
    let from = Infinity;
    for (const [id, was] of touched ?? []) {
      if (this.claims.has(id) === was) continue;
      const at = this.indexOfId.get(id);
      if (at !== undefined && at < from) from = at;
    }
    if (from < Infinity) this.dropFrom(from);
    return this.indexes;
  }

  /** The analysis kept for checkpoint `index`, made from the same record and turns (after sync), if any. */
  kept(index: number): KeptAnalysis | undefined {
    return this.slots[index]?.kept;
  }

  /**
   * Keeps `kept` for checkpoint `index`. Call only after sync with the transcript it was made from, for an
   * analysis that did not fail and whose counting did not fail.
   */
  keep(index: number, kept: KeptAnalysis): void {
    const slot = this.slots[index];
    if (slot && kept.before <= this.turns.length) slot.kept = kept;
  }

  /** How many leading turns need no counting with `tokenCache`: their claimed turns' counts are in it. */
  countedBefore(tokenCache: TokenCache | undefined): number {
    return tokenCache !== undefined && tokenCache === this.countedIn ? this.countedThrough : 0;
  }

  /** Records that every claimed turn before `through` has its count in `tokenCache` (after sync). */
  markCounted(tokenCache: TokenCache, through: number): void {
    if (tokenCache !== this.countedIn) this.countedThrough = 0;
    this.countedIn = tokenCache;
    this.countedThrough = Math.max(this.countedThrough, Math.min(through, this.turns.length));
  }

  /** Drops every analysis whose prefix holds turn `index`, and the counting done from there on. */
  private dropFrom(index: number): void {
    for (const slot of this.slots) {
      if (slot.kept && slot.kept.before > index) slot.kept = undefined;
    }
    this.countedThrough = Math.min(this.countedThrough, index);
  }

  /** The index of the first turn with turn `index`'s id (see TurnIndexes.firstOf). */
  private firstOf(index: number): number | undefined {
    if (index >= this.turns.length) return undefined;
    if (this.notFirst[index] === 0) return index;
    const turn = this.turns[index];
    return turn && typeof turn === 'object' ? this.indexOfId.get((turn as Turn).id) : undefined;
  }

  private index(turn: unknown, i: number): void {
    this.turns.push(turn);
    if (i >= this.notFirst.length) {
      const grown = new Uint8Array(Math.max(2 * this.notFirst.length, i + 1));
      grown.set(this.notFirst);
      this.notFirst = grown;
    }
    this.notFirst[i] = 1;
    if (!turn || typeof turn !== 'object') return;
    const { id, answers } = turn as Turn;
    if (!this.indexOfId.has(id)) {
      this.indexOfId.add(id, i);
      this.notFirst[i] = 0;
      // What was kept for the id while no turn had it is now kept at this turn.
      this.claims.adopt(id, i);
      this.firstAnswer.adopt(id, i);
    }
    if (answers && typeof answers === 'object' && (typeof answers.turnId === 'string' || typeof answers.turnId === 'number')) {
      if (!this.firstAnswer.has(answers.turnId)) this.firstAnswer.set(answers.turnId, i);
    }
  }

  /** Forgets what `turn` (at `from` or after) added to the indexes; what earlier turns added stays. */
  private unindex(turn: unknown, from: number): void {
    if (!turn || typeof turn !== 'object') return;
    const { id, answers } = turn as Turn;
    const call: unknown = answers && typeof answers === 'object' ? answers.turnId : undefined;
    if ((typeof call === 'string' || typeof call === 'number') && (this.firstAnswer.get(call) ?? -1) >= from) this.firstAnswer.delete(call);
    const at = this.indexOfId.get(id);
    if (at !== undefined && at >= from) {
      // What is kept at this turn for its id stays kept for the id, without a turn.
      this.claims.release(id, at);
      this.firstAnswer.release(id, at);
      this.indexOfId.delete(id);
    }
  }

  private addClaim(id: TurnId, delta: 1 | -1, touched: Map<TurnId, boolean> | undefined): void {
    const n = this.claims.get(id) ?? 0;
    if (touched !== undefined && !touched.has(id)) touched.set(id, n > 0);
    if (n + delta > 0) this.claims.set(id, n + delta);
    else this.claims.delete(id);
  }
}

/**
 * The first index from `from` (below `end`) where `a` and `b` hold different values (compared by identity), or
 * `end`. A loop of its own, outside syncInSteps' generator, so that V8 optimises it: a snapshot of 125k turns is
 * compared on each append.
 */
function sameObjectsFrom(a: readonly unknown[], b: readonly unknown[], from: number, end: number): number {
  let i = from;
  while (i < end && a[i] === b[i]) i++;
  return i;
}

/**
 * The ids checkpoint `cp` claims, as analyze reads them, kept unchanged: those of `record`, its kept record (the
 * sealed record itself, whose ids are frozen with it, or its copy, whose ids are a copy already), or a copy when the
 * record could not be copied. Another copy was a million ids for a large file, and 37 MB for an OpenHands file of
 * 312 MB, whose 78 condensations each claim every event before them.
 */
function claimsOf(cp: unknown, record: unknown): readonly TurnId[] {
  const kept = idsOf(record);
  if (kept !== undefined) return kept;
  return idsOf(cp)?.slice() ?? [];
}

/** A record's claimedIds, when it is an object holding an array there. */
function idsOf(record: unknown): TurnId[] | undefined {
  const ids = record && typeof record === 'object' ? (record as Checkpoint).claimedIds : undefined;
  return Array.isArray(ids) ? ids : undefined;
}

/** A structural copy of plain data (arrays and objects of primitives), UNCOMPARABLE where it goes too deep. */
function copyRecord(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return UNCOMPARABLE;
  if (Array.isArray(value)) return value.map((x: unknown) => copyRecord(x, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return UNCOMPARABLE; // a Map, a Date…: not plain data
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyRecord((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/**
 * Whether `value` is the record `kept` stands for: the sealed record itself, or (compared field by field) what a
 * copyRecord `kept` was copied from.
 */
function sameRecord(kept: unknown, value: unknown): boolean {
  return (kept === value && isSealed(value)) || equalRecords(kept, value, 0);
}

/**
 * Whether two turns are the same plain data: equal primitives (Object.is), or arrays, or objects whose prototype is
 * Object.prototype or null, with the same own enumerable keys and the same values, at most MAX_DEPTH deep. Anything
 * else (a class instance such as a turn whose text is on disk, a Map, a typed array) is the same only as itself.
 */
export function sameTurn(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return a !== 0 || Object.is(a, b);
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return Object.is(a, b);
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameTurn(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!sameTurn((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is what `copy` (a copyRecord) was copied from, field by field. */
function equalRecords(copy: unknown, value: unknown, depth: number): boolean {
  if (copy === UNCOMPARABLE) return false;
  if (copy === null || typeof copy !== 'object' || value === null || typeof value !== 'object') {
    return Object.is(copy, value);
  }
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(copy)) {
    if (!Array.isArray(value) || value.length !== copy.length) return false;
    for (let i = 0; i < copy.length; i++) {
      const x: unknown = copy[i];
      // The common case (ids, strings) without a call; 0 and -0 go the long way (Object.is tells them apart).
      if (x === value[i] && x !== 0) continue;
      if (!equalRecords(x, value[i], depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(value)) return false;
  const keys = Object.keys(copy);
  const valueKeys = Object.keys(value);
  if (keys.length !== valueKeys.length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) return false;
    if (!equalRecords((copy as Record<string, unknown>)[key], (value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

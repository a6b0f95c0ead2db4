// Reader for Compaction Lens's own transcript format (docs/transcript-format.md): JSON Lines of
// {"type":"turn",…} and {"type":"checkpoint",…} records in log order. Streaming and incremental: each
// pushed line is validated on its own, and a checkpoint resolves its pointer set, and a turn its `answers`
// (or `reply_to`: the earlier turn whose call it answers), against the turns read so far. Problems are capped
// (problemCap.ts); a turn that could not be read leaves its id and place behind, so a `covered` range that
// starts or ends at it still claims the turns around it.

import type { Checkpoint, Problem, RawLine, ReaderContext, Role, Transcript, TranscriptReader, Turn, TurnId } from '../core/model';
import { ROLES } from '../core/model';
import { sealRecord } from '../core/sealedRecord';
import { TurnIdTable } from '../core/turnIdTable';
import { ProblemList, capProblems } from './problemCap';
import { withUnreadableTextProblems } from './unreadableText';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTurnId(value: unknown): value is TurnId {
  return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && value !== '');
}

/**
 * Ids are compared by their text, so a pointer "12" finds turn 12. The key is that text, but for a whole number
 * from 0 to 2^53 - 1, or the text JSON writes for one, which is the number: a TurnIdTable keeps those in a typed
 * array, 4 bytes a turn (a Map keyed by the text took about 60: some 180 MB of a 3M-turn transcript's reading).
 */
function idKey(id: TurnId): TurnId {
  if (typeof id === 'number') return Number.isSafeInteger(id) && id >= 0 ? id : String(id);
  return isWholeNumberText(id) ? Number(id) : id;
}

/** Whether `text` is how String writes a whole number from 0 to 2^53 - 1: digits only, no leading zero. */
function isWholeNumberText(text: string): boolean {
  if (text.length === 0 || text.length > 16 || (text.length > 1 && text.charCodeAt(0) === 0x30)) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return Number.isSafeInteger(Number(text));
}

function quoteId(id: unknown): string {
  return typeof id === 'string' ? JSON.stringify(id) : String(id);
}

function listIds(ids: unknown[], max = 5): string {
  const shown = ids.slice(0, max).map(quoteId).join(', ');
  return ids.length > max ? `${shown} … (${ids.length} in all)` : shown;
}

/** Turns that could not be read whose id is remembered (for ranges that end at them); the rest are forgotten. */
const MAX_REMEMBERED_LOST_TURNS = 10_000;

/** A JSON string or an integer, right after `"id":` (an unambiguous pattern: linear time). */
const ID_VALUE = /\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\\n]|\\.){1,200}")/y;

/**
 * The id of a turn record that is not valid JSON, when it can be seen: the value after its first `"id"` key.
 * Only used to place a `covered` range's end; a line that does not look like a turn gives nothing.
 */
function salvageTurnId(text: string): TurnId | undefined {
  if (!/"type"\s*:\s*"turn"/.test(text)) return undefined;
  const key = text.indexOf('"id"');
  if (key === -1) return undefined;
  ID_VALUE.lastIndex = key + 4;
  const match = ID_VALUE.exec(text);
  if (!match) return undefined;
  if (match[1].startsWith('"')) {
    try {
      const id = JSON.parse(match[1]) as string;
      return id === '' ? undefined : id;
    } catch {
      return undefined;
    }
  }
  return Number(match[1]);
}

/** An integer id's value (ids "12" and 12 are the same turn), or undefined. */
function integerValue(id: TurnId): number | undefined {
  const value = typeof id === 'number' ? id : /^-?\d{1,15}$/.test(id) ? Number(id) : undefined;
  return value !== undefined && Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Where a `covered` range's endpoint is, as a turn index: `found` (the turn itself), `lost-line` (the turn's line
 * could not be read; `at` is the nearest readable turn inside the range), `id-order` (no such turn, but the
 * integer ids run in log order; `at` is the nearest turn inside the range by id).
 */
type Endpoint = { at: number; how: 'found' } | { at: number; how: 'lost-line'; line: number } | { at: number; how: 'id-order' };

/** What a checkpoint's "covered" resolved to: its pointer set, and why coverage cannot be checked if it cannot. */
interface Claim {
  claimed: TurnId[];
  unverifiable?: string;
}

export class CanonicalReader implements TranscriptReader {
  readonly format = 'canonical' as const;
  private readonly turns: Turn[] = [];
  private readonly checkpoints: Checkpoint[] = [];
  private readonly problems = new ProblemList();
  /** Turn index by id key, for pointer resolution and duplicate detection. */
  private readonly indexById = new TurnIdTable();
  /** Turns that could not be read, by id key: their line and how many turns were read before them. */
  private readonly lostTurns = new Map<TurnId, { line: number; position: number }>();
  /** True while every turn read has an integer id, each greater than the one before. */
  private idsAscend = true;
  private lineCount = 0;

  constructor(private readonly context: ReaderContext = { fileName: '' }) {}

  push(line: RawLine): void {
    this.lineCount = Math.max(this.lineCount, line.line);
    const text = line.text.trim();
    if (text === '') return;
    if (this.problems.full && !text.startsWith('{')) {
      // Past the cap a line that is no JSON object is only counted: no parse, no message.
      this.problems.count(line.line, line.terminated ? 'error' : 'warning');
      return;
    }
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      if (!line.terminated) {
        this.problem(
          line.line,
          'warning',
          `line ${line.line} is incomplete (the file does not end with a newline and the line is not valid JSON): the agent may still be writing it. It was skipped; it will be read once it is complete.`,
        );
      } else {
        const detail = error instanceof Error ? error.message : String(error);
        this.problem(line.line, 'error', () => `line ${line.line} is not valid JSON (${detail}). Fix or remove the line; it was skipped.`);
        this.rememberLostTurn(salvageTurnId(text), line.line);
      }
      return;
    }
    if (!isObject(record)) {
      this.problem(
        line.line,
        'error',
        `line ${line.line} is not a JSON object. Each line must be a {"type":"turn",…} or {"type":"checkpoint",…} record; it was skipped.`,
      );
      return;
    }
    if (record.type === 'turn') this.readTurn(record, line);
    else if (record.type === 'checkpoint') this.readCheckpoint(record, line);
    else {
      this.problem(
        line.line,
        'error',
        `line ${line.line} has type ${JSON.stringify(record.type) ?? 'undefined'}; expected "turn" or "checkpoint". It was skipped.`,
      );
    }
  }

  /**
   * Every checkpoint read (TranscriptReader.settledCheckpoints): each is made from its own line, against the turns
   * before it, and no later line changes it or them.
   */
  settledCheckpoints(): number {
    return this.checkpoints.length;
  }

  finish(): Transcript {
    const transcript = withUnreadableTextProblems({
      format: this.format,
      turns: this.turns.slice(),
      checkpoints: this.checkpoints.slice(),
      problems: this.problems.list(),
      lineCount: this.lineCount,
    });
    return { ...transcript, problems: capProblems(transcript.problems) };
  }

  private problem(line: number, severity: Problem['severity'], message: string | (() => string)): void {
    this.problems.add(line, severity, message);
  }

  /** Remembers where a turn that could not be read was, by its id, for a range that starts or ends at it. */
  private rememberLostTurn(id: TurnId | undefined, line: number): void {
    if (id === undefined || this.indexById.has(idKey(id)) || this.lostTurns.has(idKey(id))) return;
    if (this.lostTurns.size >= MAX_REMEMBERED_LOST_TURNS) return;
    this.lostTurns.set(idKey(id), { line, position: this.turns.length });
  }

  private span(line: RawLine) {
    return { startLine: line.line, endLine: line.line, startOffset: line.offset, endOffset: line.endOffset };
  }

  private readTurn(record: JsonObject, line: RawLine): void {
    const n = line.line;
    if (!isTurnId(record.id)) {
      this.problem(n, 'error', `turn on line ${n} has no usable "id" (an integer or a non-empty string). Add one; the turn was skipped.`);
      return;
    }
    const id = record.id;
    const previous = this.indexById.get(idKey(id));
    if (previous !== undefined) {
      const first = this.turns[previous].span.startLine;
      this.problem(
        n,
        'error',
        `turn id ${quoteId(id)} on line ${n} was already used on line ${first}. Give each turn a unique id; this record was skipped.`,
      );
      return;
    }
    const role = typeof record.role === 'string' && (ROLES as readonly string[]).includes(record.role) ? (record.role as Role) : undefined;
    if (role === undefined) {
      this.problem(
        n,
        'error',
        `turn ${quoteId(id)} on line ${n} has role ${JSON.stringify(record.role) ?? 'undefined'}; expected one of ${ROLES.join(', ')}. The turn was skipped.`,
      );
      this.rememberLostTurn(id, n);
      return;
    }
    if (typeof record.content !== 'string') {
      this.problem(n, 'error', `turn ${quoteId(id)} on line ${n} has no "content" string. The turn was skipped.`);
      this.rememberLostTurn(id, n);
      return;
    }
    const turn: Turn = { id, role, text: record.content, span: this.span(line) };
    if (record.tokens !== undefined) {
      if (typeof record.tokens === 'number' && Number.isInteger(record.tokens) && record.tokens >= 0) turn.tokens = record.tokens;
      else
        this.problem(
          n,
          'warning',
          `turn ${quoteId(id)} on line ${n} has "tokens" ${JSON.stringify(record.tokens)}, not a whole number ≥ 0; its tokens will be counted instead.`,
        );
    }
    if (record.anchor !== undefined) {
      if (typeof record.anchor === 'string' && record.anchor !== '') turn.anchor = record.anchor;
      else
        this.problem(
          n,
          'warning',
          `turn ${quoteId(id)} on line ${n} has an empty or non-string "anchor"; anchors will be derived from its text instead.`,
        );
    }
    this.readAnswers(record, turn, n);
    if (this.idsAscend) {
      const value = integerValue(id);
      const previousValue = this.turns.length === 0 ? undefined : integerValue(this.turns[this.turns.length - 1].id);
      this.idsAscend = value !== undefined && (this.turns.length === 0 || (previousValue !== undefined && value > previousValue));
    }
    this.indexById.set(idKey(id), this.turns.length);
    // Nothing changes a turn once it is read: it can be kept as the context wants it.
    this.turns.push(this.context.keepTurn?.(turn) ?? turn);
  }

  /** `answers` (or its synonym `reply_to`): the id of an earlier turn whose call this turn answers. */
  private readAnswers(record: JsonObject, turn: Turn, n: number): void {
    const field = record.answers !== undefined ? 'answers' : record.reply_to !== undefined ? 'reply_to' : undefined;
    if (field === undefined) return;
    const target = record[field];
    const label = `turn ${quoteId(turn.id)} on line ${n}`;
    if (!isTurnId(target)) {
      this.problem(n, 'warning', `${label} has "${field}" ${JSON.stringify(target)}, not a turn id; it was ignored.`);
      return;
    }
    const index = this.indexById.get(idKey(target));
    if (index === undefined) {
      this.problem(
        n,
        'warning',
        `${label} answers turn ${quoteId(target)}, which is not a turn before it in this file; it is read as answering nothing.`,
      );
      return;
    }
    const call = this.turns[index];
    turn.answers = { turnId: call.id, callText: call.text };
  }

  private readCheckpoint(record: JsonObject, line: RawLine): void {
    const n = line.line;
    const summaryId =
      typeof record.summary_id === 'string' && record.summary_id !== '' ? record.summary_id : `S${this.checkpoints.length + 1}@${n}`;
    if (typeof record.summary_id !== 'string' || record.summary_id === '') {
      this.problem(n, 'warning', `checkpoint on line ${n} has no "summary_id"; it is shown as ${summaryId}.`);
    }
    const label = `checkpoint ${summaryId} on line ${n}`;
    if (this.turns.length === 0) {
      this.problem(
        n,
        'error',
        `${label} comes before any turn, so it can cover nothing. Move it after the turns it summarises; it was skipped.`,
      );
      return;
    }
    if (typeof record.summary !== 'string') {
      this.problem(n, 'error', `${label} has no "summary" string. Add the summary text; the checkpoint was skipped.`);
      return;
    }
    const claim = this.resolveCovered(record.covered, label, n);
    if (claim === undefined) return;

    const checkpoint: Checkpoint = {
      summaryId,
      summary: record.summary,
      claimedIds: claim.claimed,
      span: this.span(line),
      turnsBefore: this.turns.length,
    };
    if (claim.unverifiable !== undefined) checkpoint.unverifiable = claim.unverifiable;
    const budget = record.summary_budget;
    if (typeof budget === 'number' && Number.isFinite(budget) && budget > 0) {
      checkpoint.summaryBudget = budget;
    } else if (budget === undefined || budget === null) {
      if (this.context.defaultBudget !== undefined) {
        checkpoint.summaryBudget = this.context.defaultBudget;
        checkpoint.budgetAssumed = true;
      }
      const fallback = checkpoint.budgetAssumed
        ? `the default ${this.context.defaultBudget} is assumed`
        : 'the ceiling cannot be checked, so the checkpoint is judged fail-closed';
      this.problem(n, 'warning', `${label} has no "summary_budget": ${fallback}. Record the budget the summariser was given.`);
    } else {
      this.problem(
        n,
        'error',
        `${label} has "summary_budget" ${JSON.stringify(budget)}; it must be a positive number of tokens. The budget is treated as unknown (fail closed).`,
      );
    }
    if (record.reported_ids !== undefined) {
      if (Array.isArray(record.reported_ids)) {
        const good = record.reported_ids.filter(isTurnId);
        const unknown = good.filter((id) => !this.isBefore(id));
        if (good.length !== record.reported_ids.length) {
          this.problem(n, 'warning', `${label} has "reported_ids" entries that are not turn ids; they were ignored.`);
        }
        if (unknown.length > 0) {
          this.problem(
            n,
            'warning',
            `${label} reports consuming ids that are not turns before it: ${listIds(unknown)}. They were ignored.`,
          );
        }
        checkpoint.reportedIds = good.filter((id) => this.isBefore(id)).map((id) => this.turns[this.indexById.get(idKey(id))!].id);
      } else {
        this.problem(
          n,
          'error',
          `${label} has "reported_ids" that is not an array of turn ids; it was ignored (no coverage report, Path B).`,
        );
      }
    }
    // Handed back unchanged in every later snapshot: sealed, so the checkpoint memo tells it by identity.
    this.checkpoints.push(sealRecord(checkpoint));
  }

  private isBefore(id: TurnId): boolean {
    return this.indexById.has(idKey(id));
  }

  /** Resolves "covered" into the ids of preceding turns, or undefined (with a problem) when unusable. */
  private resolveCovered(covered: unknown, label: string, n: number): Claim | undefined {
    if (Array.isArray(covered)) {
      const notIds = covered.filter((id) => !isTurnId(id));
      const ids = covered.filter(isTurnId);
      const unknown = ids.filter((id) => !this.isBefore(id));
      if (notIds.length > 0)
        this.problem(n, 'error', `${label} has "covered" entries that are not turn ids: ${listIds(notIds)}. They were ignored.`);
      if (unknown.length > 0) {
        this.problem(
          n,
          'error',
          `${label} claims ids that are not turns before it: ${listIds(unknown)}. A pointer to a turn that does not exist cannot be checked; those pointers were ignored.`,
        );
      }
      const seen = new Set<TurnId>();
      const claimed: TurnId[] = [];
      for (const id of ids) {
        const index = this.indexById.get(idKey(id));
        if (index === undefined || seen.has(idKey(id))) continue;
        seen.add(idKey(id));
        claimed.push(this.turns[index].id);
      }
      return { claimed };
    }
    if (isObject(covered) && 'from' in covered && 'to' in covered) {
      const { from, to } = covered;
      if (!isTurnId(from) || !isTurnId(to)) {
        this.problem(
          n,
          'error',
          `${label} has "covered" ${JSON.stringify(covered)}: "from" and "to" must be turn ids. The checkpoint was skipped.`,
        );
        return undefined;
      }
      const start = this.locate(from, 'from');
      const end = this.locate(to, 'to');
      if (start?.how === 'found' && end?.how === 'found') {
        if (start.at > end.at) {
          this.problem(
            n,
            'error',
            `${label} has "covered" from ${quoteId(from)} to ${quoteId(to)}, but turn ${quoteId(from)} comes after turn ${quoteId(to)} in the log. Write the range in log order; the checkpoint was skipped.`,
          );
          return undefined;
        }
        return { claimed: this.idsBetween(start.at, end.at) };
      }
      return this.resolveBrokenRange(from, to, start, end, label, n);
    }
    this.problem(
      n,
      'error',
      `${label} has no usable "covered": give {"from": id, "to": id} or an array of ids. The checkpoint was skipped.`,
    );
    return undefined;
  }

  /** The ids of the turns from index `start` to `end`, in an array made at its length (no copy of the turns). */
  private idsBetween(start: number, end: number): TurnId[] {
    const ids = new Array<TurnId>(end - start + 1);
    for (let i = start; i <= end; i++) ids[i - start] = this.turns[i].id;
    return ids;
  }

  /** Where a range endpoint is among the turns read so far (see Endpoint), or undefined when it cannot be placed. */
  private locate(id: TurnId, side: 'from' | 'to'): Endpoint | undefined {
    const index = this.indexById.get(idKey(id));
    if (index !== undefined) return { at: index, how: 'found' };
    const lost = this.lostTurns.get(idKey(id));
    if (lost !== undefined) return { at: side === 'from' ? lost.position : lost.position - 1, how: 'lost-line', line: lost.line };
    const value = integerValue(id);
    if (value === undefined || !this.idsAscend || this.turns.length === 0) return undefined;
    // The first turn whose id is above the value (ids ascend, so a binary search).
    let lo = 0;
    let hi = this.turns.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (integerValue(this.turns[mid].id)! > value) hi = mid;
      else lo = mid + 1;
    }
    return { at: side === 'from' ? lo : lo - 1, how: 'id-order' };
  }

  /**
   * A {from, to} range with an end that is not a turn read before the checkpoint. The checkpoint is kept: it
   * claims the turns it can place, and says which end was not found and why. When an end cannot be placed at
   * all, the range runs to that side's last turn and coverage is unverifiable (judged fail-closed).
   */
  private resolveBrokenRange(
    from: TurnId,
    to: TurnId,
    start: Endpoint | undefined,
    end: Endpoint | undefined,
    label: string,
    n: number,
  ): Claim {
    const why = (id: TurnId, where: Endpoint | undefined): string | undefined => {
      if (where === undefined || where.how === 'found') return undefined;
      if (where.how === 'lost-line') return `turn ${quoteId(id)} is on line ${where.line}, which could not be read`;
      return `turn ${quoteId(id)} is not in this file`;
    };
    const reasons = [...new Set([why(from, start), why(to, end)].filter((reason) => reason !== undefined))];
    const unplaced = [start === undefined ? from : undefined, end === undefined ? to : undefined].filter((id) => id !== undefined);
    const first = start?.at ?? 0;
    const last = end?.at ?? this.turns.length - 1;
    const claimed = first <= last ? this.idsBetween(first, last) : [];
    const range =
      claimed.length === 0
        ? 'no turn'
        : `${claimed.length} turn${claimed.length === 1 ? '' : 's'}, ${quoteId(claimed[0])}–${quoteId(claimed[claimed.length - 1])}`;
    if (unplaced.length > 0) {
      const unverifiable = `its "covered" range from ${quoteId(from)} to ${quoteId(to)} names ${unplaced.length === 1 ? 'a turn' : 'turns'} not in this file (${listIds(unplaced)}), so which turns it claims is not known`;
      this.problem(
        n,
        'error',
        `${label} claims a range from ${quoteId(from)} to ${quoteId(to)}, but ${listIds(unplaced)} ${unplaced.length === 1 ? 'is not a turn' : 'are not turns'} before it${reasons.length > 0 ? ` (and ${reasons.join('; ')})` : ''}. Which turns it claims is not known, so its coverage cannot be checked (fail closed); it is shown over the turns the range may span (${range}). Fix "covered".`,
      );
      return { claimed, unverifiable };
    }
    if (claimed.length === 0) {
      const unverifiable = `the turns its "covered" range names (${quoteId(from)}–${quoteId(to)}) could not be read from this file: ${reasons.join('; ')}`;
      this.problem(
        n,
        'error',
        `${label} claims a range from ${quoteId(from)} to ${quoteId(to)}, but ${reasons.join('; ')}, and no readable turn lies between them: its coverage cannot be checked (fail closed). Fix the line${reasons.length === 1 ? '' : 's'} to have ${reasons.length === 1 ? 'it' : 'them'} read.`,
      );
      return { claimed, unverifiable };
    }
    const fix = [start, end].some((where) => where?.how === 'lost-line')
      ? 'Fix the unreadable line to have that turn read and checked.'
      : 'Fix "covered", or the file if turns are missing from it.';
    this.problem(
      n,
      'error',
      `${label} claims a range from ${quoteId(from)} to ${quoteId(to)}, but ${reasons.join('; ')}. The checkpoint claims the readable turns of the range (${range}); ${reasons.length === 1 ? 'that end' : 'those ends'} cannot be checked. ${fix}`,
    );
    return { claimed };
  }
}

// Reader for Compaction Lens's own transcript format (docs/transcript-format.md): JSON Lines of
// {"type":"turn",…} and {"type":"checkpoint",…} records in log order. Streaming and incremental: each
// pushed line is validated on its own, and a checkpoint resolves its pointer set, and a turn its `answers`
// (or `reply_to`: the earlier turn whose call it answers), against the turns read so far.

import type {
  Checkpoint,
  Problem,
  RawLine,
  ReaderContext,
  Role,
  Transcript,
  TranscriptReader,
  Turn,
  TurnId,
} from '../core/model';
import { withUnreadableTextProblems } from './unreadableText';

const ROLES: readonly Role[] = ['user', 'assistant', 'tool', 'system'];

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTurnId(value: unknown): value is TurnId {
  return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && value !== '');
}

/** Ids are compared by their text, so a pointer "12" finds turn 12. */
function idKey(id: TurnId): string {
  return String(id);
}

function quoteId(id: unknown): string {
  return typeof id === 'string' ? JSON.stringify(id) : String(id);
}

function listIds(ids: unknown[], max = 5): string {
  const shown = ids.slice(0, max).map(quoteId).join(', ');
  return ids.length > max ? `${shown} … (${ids.length} in all)` : shown;
}

export class CanonicalReader implements TranscriptReader {
  readonly format = 'canonical' as const;
  private readonly turns: Turn[] = [];
  private readonly checkpoints: Checkpoint[] = [];
  private readonly problems: Problem[] = [];
  /** Turn index by id key, for pointer resolution and duplicate detection. */
  private readonly indexById = new Map<string, number>();
  private lineCount = 0;

  constructor(private readonly context: ReaderContext = { fileName: '' }) {}

  push(line: RawLine): void {
    this.lineCount = Math.max(this.lineCount, line.line);
    const text = line.text.trim();
    if (text === '') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      if (!line.terminated) {
        this.problem(line.line, 'warning', `line ${line.line} is incomplete (the file does not end with a newline and the line is not valid JSON): the agent may still be writing it. It was skipped; it will be read once it is complete.`);
      } else {
        const detail = error instanceof Error ? error.message : String(error);
        this.problem(line.line, 'error', `line ${line.line} is not valid JSON (${detail}). Fix or remove the line; it was skipped.`);
      }
      return;
    }
    if (!isObject(record)) {
      this.problem(line.line, 'error', `line ${line.line} is not a JSON object. Each line must be a {"type":"turn",…} or {"type":"checkpoint",…} record; it was skipped.`);
      return;
    }
    if (record.type === 'turn') this.readTurn(record, line);
    else if (record.type === 'checkpoint') this.readCheckpoint(record, line);
    else {
      this.problem(line.line, 'error', `line ${line.line} has type ${JSON.stringify(record.type) ?? 'undefined'}; expected "turn" or "checkpoint". It was skipped.`);
    }
  }

  finish(): Transcript {
    return withUnreadableTextProblems({
      format: this.format,
      turns: this.turns.slice(),
      checkpoints: this.checkpoints.slice(),
      problems: this.problems.slice(),
      lineCount: this.lineCount,
    });
  }

  private problem(line: number, severity: Problem['severity'], message: string): void {
    this.problems.push({ line, severity, message });
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
      this.problem(n, 'error', `turn id ${quoteId(id)} on line ${n} was already used on line ${first}. Give each turn a unique id; this record was skipped.`);
      return;
    }
    const role = typeof record.role === 'string' && (ROLES as readonly string[]).includes(record.role) ? (record.role as Role) : undefined;
    if (role === undefined) {
      this.problem(n, 'error', `turn ${quoteId(id)} on line ${n} has role ${JSON.stringify(record.role) ?? 'undefined'}; expected one of ${ROLES.join(', ')}. The turn was skipped.`);
      return;
    }
    if (typeof record.content !== 'string') {
      this.problem(n, 'error', `turn ${quoteId(id)} on line ${n} has no "content" string. The turn was skipped.`);
      return;
    }
    const turn: Turn = { id, role, text: record.content, span: this.span(line) };
    if (record.tokens !== undefined) {
      if (typeof record.tokens === 'number' && Number.isInteger(record.tokens) && record.tokens >= 0) turn.tokens = record.tokens;
      else this.problem(n, 'warning', `turn ${quoteId(id)} on line ${n} has "tokens" ${JSON.stringify(record.tokens)}, not a whole number ≥ 0; its tokens will be counted instead.`);
    }
    if (record.anchor !== undefined) {
      if (typeof record.anchor === 'string' && record.anchor !== '') turn.anchor = record.anchor;
      else this.problem(n, 'warning', `turn ${quoteId(id)} on line ${n} has an empty or non-string "anchor"; anchors will be derived from its text instead.`);
    }
    this.readAnswers(record, turn, n);
    this.indexById.set(idKey(id), this.turns.length);
    this.turns.push(turn);
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
      this.problem(n, 'warning', `${label} answers turn ${quoteId(target)}, which is not a turn before it in this file; it is read as answering nothing.`);
      return;
    }
    const call = this.turns[index];
    turn.answers = { turnId: call.id, callText: call.text };
  }

  private readCheckpoint(record: JsonObject, line: RawLine): void {
    const n = line.line;
    const summaryId = typeof record.summary_id === 'string' && record.summary_id !== '' ? record.summary_id : `S${this.checkpoints.length + 1}@${n}`;
    if (typeof record.summary_id !== 'string' || record.summary_id === '') {
      this.problem(n, 'warning', `checkpoint on line ${n} has no "summary_id"; it is shown as ${summaryId}.`);
    }
    const label = `checkpoint ${summaryId} on line ${n}`;
    if (this.turns.length === 0) {
      this.problem(n, 'error', `${label} comes before any turn, so it can cover nothing. Move it after the turns it summarises; it was skipped.`);
      return;
    }
    if (typeof record.summary !== 'string') {
      this.problem(n, 'error', `${label} has no "summary" string. Add the summary text; the checkpoint was skipped.`);
      return;
    }
    const claimedIds = this.resolveCovered(record.covered, label, n);
    if (claimedIds === undefined) return;

    const checkpoint: Checkpoint = {
      summaryId,
      summary: record.summary,
      claimedIds,
      span: this.span(line),
      turnsBefore: this.turns.length,
    };
    const budget = record.summary_budget;
    if (typeof budget === 'number' && Number.isFinite(budget) && budget > 0) {
      checkpoint.summaryBudget = budget;
    } else if (budget === undefined || budget === null) {
      if (this.context.defaultBudget !== undefined) {
        checkpoint.summaryBudget = this.context.defaultBudget;
        checkpoint.budgetAssumed = true;
      }
      const fallback = checkpoint.budgetAssumed ? `the default ${this.context.defaultBudget} is assumed` : 'the ceiling cannot be checked, so the checkpoint is judged fail-closed';
      this.problem(n, 'warning', `${label} has no "summary_budget": ${fallback}. Record the budget the summariser was given.`);
    } else {
      this.problem(n, 'error', `${label} has "summary_budget" ${JSON.stringify(budget)}; it must be a positive number of tokens. The budget is treated as unknown (fail closed).`);
    }
    if (record.reported_ids !== undefined) {
      if (Array.isArray(record.reported_ids)) {
        const good = record.reported_ids.filter(isTurnId);
        const unknown = good.filter((id) => !this.isBefore(id));
        if (good.length !== record.reported_ids.length) {
          this.problem(n, 'warning', `${label} has "reported_ids" entries that are not turn ids; they were ignored.`);
        }
        if (unknown.length > 0) {
          this.problem(n, 'warning', `${label} reports consuming ids that are not turns before it: ${listIds(unknown)}. They were ignored.`);
        }
        checkpoint.reportedIds = good.filter((id) => this.isBefore(id)).map((id) => this.turns[this.indexById.get(idKey(id))!].id);
      } else {
        this.problem(n, 'error', `${label} has "reported_ids" that is not an array of turn ids; it was ignored (no coverage report, Path B).`);
      }
    }
    this.checkpoints.push(checkpoint);
  }

  private isBefore(id: TurnId): boolean {
    return this.indexById.has(idKey(id));
  }

  /** Resolves "covered" into the ids of preceding turns, or undefined (with a problem) when unusable. */
  private resolveCovered(covered: unknown, label: string, n: number): TurnId[] | undefined {
    if (Array.isArray(covered)) {
      const notIds = covered.filter((id) => !isTurnId(id));
      const ids = covered.filter(isTurnId);
      const unknown = ids.filter((id) => !this.isBefore(id));
      if (notIds.length > 0) this.problem(n, 'error', `${label} has "covered" entries that are not turn ids: ${listIds(notIds)}. They were ignored.`);
      if (unknown.length > 0) {
        this.problem(n, 'error', `${label} claims ids that are not turns before it: ${listIds(unknown)}. A pointer to a turn that does not exist cannot be checked; those pointers were ignored.`);
      }
      const seen = new Set<string>();
      const claimed: TurnId[] = [];
      for (const id of ids) {
        const index = this.indexById.get(idKey(id));
        if (index === undefined || seen.has(idKey(id))) continue;
        seen.add(idKey(id));
        claimed.push(this.turns[index].id);
      }
      return claimed;
    }
    if (isObject(covered) && 'from' in covered && 'to' in covered) {
      const { from, to } = covered;
      if (!isTurnId(from) || !isTurnId(to)) {
        this.problem(n, 'error', `${label} has "covered" ${JSON.stringify(covered)}: "from" and "to" must be turn ids. The checkpoint was skipped.`);
        return undefined;
      }
      const start = this.indexById.get(idKey(from));
      const end = this.indexById.get(idKey(to));
      const missing = [start === undefined ? from : undefined, end === undefined ? to : undefined].filter((id) => id !== undefined);
      if (missing.length > 0) {
        this.problem(n, 'error', `${label} claims a range that points to ids that are not turns before it: ${listIds(missing)}. Fix "covered"; the checkpoint was skipped.`);
        return undefined;
      }
      if (start! > end!) {
        this.problem(n, 'error', `${label} has "covered" from ${quoteId(from)} to ${quoteId(to)}, but turn ${quoteId(from)} comes after turn ${quoteId(to)} in the log. Write the range in log order; the checkpoint was skipped.`);
        return undefined;
      }
      return this.turns.slice(start!, end! + 1).map((turn) => turn.id);
    }
    this.problem(n, 'error', `${label} has no usable "covered": give {"from": id, "to": id} or an array of ids. The checkpoint was skipped.`);
    return undefined;
  }
}

// Reader for sessions of the pi coding agent (badlogic/pi-mono, ~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl):
// JSON Lines, one entry a line. A `session` header ({type, id, timestamp, cwd, version?…}), then entries:
// `message` ({message: {role, content, …}}), `compaction` ({summary, firstKeptEntryIndex | firstKeptEntryId,
// tokensBefore}), `model_change`, `thinking_level_change`, and in newer versions `branch_summary`,
// `custom_message`, `custom`, `label`, `session_info`. Version 1 files (the real one in the corpus) have no entry
// ids; version 2 and later give every entry but the header an `id` and a `parentId` (a tree: branches share a file).
//
// Turns: one per message line (and per `custom_message` / `branch_summary` entry, which pi puts in the context).
// Id: the entry's `id` when it has one, else its entry index (see below), so a version 1 file's turn ids are the
// numbers its firstKeptEntryIndex speaks. Text: the text parts, tool calls as "[tool call NAME] ARGS" lines (the
// `toolCall` part's name and arguments); `thinking` parts are left out of the text, as every reader leaves reasoning out
// (textOf.ts). Roles: user → user; assistant → assistant; toolResult → tool, answering the toolCall whose `id` its
// `toolCallId` names (toolLinks.ts), `isError` → error; bashExecution (a command the user ran with `!`) → tool,
// its command as a bash call and its output (left out when `excludeFromContext`, as pi leaves it out of the
// context); custom / hookMessage → user; branchSummary → system. Tokens are left to be counted: an assistant's
// `usage.output` counts its thinking too, which is not in its text.
//
// Checkpoints: each `compaction` line. Claimed: every turn before the first kept entry — pi summarises everything
// before it (the previous summary included, so coverage is cumulative). The first kept entry is
//  - `firstKeptEntryId` (version 2+): the entry with that id among the entries before the compaction;
//  - `firstKeptEntryIndex` (version 1): an index into the session's entry list AS PI HELD IT, HEADER INCLUDED
//    (entries[0] is the `session` line), i.e. the (index+1)-th non-blank line of the file. Checked on the real
//    session (corpus/pi): the compaction on line 360 says 293 and the one on line 629 says 551; counting the
//    header, entries 293 and 551 are file lines 294 and 552, user messages ("i reviwed what we have, it's good.
//    continue", "can leave it") right after the assistant's reply that ends a turn — pi cuts at turn starts. Not
//    counting it they would be lines 295 and 553, assistant replies in the middle of those turns. pi's own v1→v2
//    migration looks the index up in the same list, header included. A line that is not JSON still counts as an
//    entry (it was one when pi wrote the index), so a damaged line does not shift the ones after it.
// In a version 2+ file whose entries chain by `parentId`, only the turns on the compaction's own branch (its
// ancestors) are claimed; when the chain breaks (a parent not in the file) the file order is used, said so.
// When the first kept entry cannot be found (no field, an id not in the file, an index not before the
// compaction), every turn before the compaction is claimed — an inference, said in a problem and a note.
// `tokensBefore` is the recorded prefix size (like Claude Code's preTokens). pi records no summary budget: the
// configured default is assumed (pi asks for at most 0.8 × reserveTokens, see core/defaults.ts).
// A checkpoint reads only the lines before it: later lines never change it. So records are read as they are pushed,
// a batch at a time (ReadState), and a file read once from its start lets them go once read and hands each turn to
// ReaderContext.keepTurn as it is made (a large file's texts go to disk as they are read).

import { groupDigits } from '../core/displayText';
import type { Checkpoint, Problem, RawLine, ReaderContext, Role, TextKeeper, Transcript, Turn, TurnId } from '../core/model';
import { sealRecord } from '../core/sealedRecord';
import { isObject, type JsonLinesBuffer, type JsonObject } from './jsonLines';
import { PushedRecords, READ_AHEAD_RECORDS } from './pushedRecords';
import { RebuildingReader } from './rebuildingReader';
import { lineSpan } from './sourceSpan';
import { textOf, thinkingOf, toolCallText } from './textOf';
import { CallLinks, type ToolCall } from './toolLinks';
import { indexInSorted } from '../core/sortedNumbers';

/** Entry types that are not turns and need no word: settings, labels, extension state. */
const QUIET_TYPES = new Set(['model_change', 'thinking_level_change', 'custom', 'label', 'session_info']);

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A message's content as text: text parts, tool calls as "[tool call NAME] ARGS", images as "[image]"; no thinking. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  const out: string[] = [];
  for (const part of content) {
    let text: string;
    if (isObject(part) && part.type === 'toolCall') text = toolCallText(part.name, part.arguments);
    else if (isObject(part) && part.type === 'thinking') continue;
    else text = textOf(part);
    if (text !== '') out.push(text);
  }
  return out.join('\n');
}

/** The toolCall parts of an assistant message that have an id. */
function callsIn(content: unknown): ToolCall[] {
  const calls: ToolCall[] = [];
  if (!Array.isArray(content)) return calls;
  for (const part of content) {
    if (isObject(part) && part.type === 'toolCall' && str(part.id) !== undefined)
      calls.push({ id: part.id as string, text: toolCallText(part.name, part.arguments) });
  }
  return calls;
}

function toolNamesIn(content: unknown): string[] {
  const names: string[] = [];
  if (!Array.isArray(content)) return names;
  for (const part of content) {
    if (isObject(part) && part.type === 'toolCall' && typeof part.name === 'string' && !names.includes(part.name)) names.push(part.name);
  }
  return names;
}

interface TurnShape {
  role: Role;
  text: string;
  label: string;
  calls: ToolCall[];
  answers?: string;
  error?: boolean;
  /** The thinking parts' text: never counted, but what a lookup was for (Turn.reasoning). */
  reasoning?: string;
}

/** What a message makes: a turn's shape, `skip` (a message pi keeps out of the context), or undefined (unknown). */
function messageShape(message: JsonObject): TurnShape | 'skip' | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', text: contentText(message.content), label: 'user', calls: [] };
    case 'assistant': {
      const names = toolNamesIn(message.content);
      const failed = message.stopReason === 'error' || message.stopReason === 'aborted' ? ` (${message.stopReason})` : '';
      return {
        role: 'assistant',
        text: contentText(message.content),
        label: (names.length > 0 ? names.join(', ') : 'assistant') + failed,
        calls: callsIn(message.content),
        reasoning: thinkingOf(message.content),
      };
    }
    case 'toolResult': {
      const shape: TurnShape = {
        role: 'tool',
        text: contentText(message.content),
        label: `${str(message.toolName) ?? 'tool'} result`,
        calls: [],
      };
      const answers = str(message.toolCallId);
      if (answers !== undefined) shape.answers = answers;
      if (message.isError === true) shape.error = true;
      return shape;
    }
    case 'bashExecution': {
      if (message.excludeFromContext === true) return 'skip';
      const output = typeof message.output === 'string' ? message.output : '';
      const text = [toolCallText('bash', { command: typeof message.command === 'string' ? message.command : '' }), output]
        .filter((t) => t !== '')
        .join('\n');
      return { role: 'tool', text, label: 'bash (user)', calls: [] };
    }
    case 'custom':
    case 'hookMessage':
      return { role: 'user', text: contentText(message.content), label: str(message.customType) ?? String(message.role), calls: [] };
    case 'branchSummary':
      return { role: 'system', text: typeof message.summary === 'string' ? message.summary : '', label: 'branch summary', calls: [] };
    default:
      return undefined;
  }
}

/** An entry with an id, as the chain of `parentId`s sees it. */
interface Entry {
  line: number;
  parentId?: string;
}

/**
 * What readRecords has read so far, kept between finishes so that lines appended are read in proportion to
 * themselves. A checkpoint reads only the lines before it, and a turn is whole once its line is read, so lines
 * appended never change what was read.
 */
class ReadState {
  /** How many of the line buffer's records were read. */
  read = 0;
  readonly problems: Problem[] = [];
  readonly turns: Turn[] = [];
  /** Each turn's line, by turn index (in line order). */
  readonly turnLines: number[] = [];
  readonly checkpoints: Checkpoint[] = [];
  readonly calls: CallLinks;
  readonly used = new Set<string>();
  /** Entries with an id, by id (the first of a repeated id wins: later lines never change earlier ones). */
  readonly entries = new Map<string, Entry>();
  readonly unknown = new Set<string>();

  /** `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  constructor(keeper?: TextKeeper) {
    this.calls = new CallLinks(keeper);
  }
}

export class PiReader extends RebuildingReader {
  readonly format = 'pi' as const;
  /** The records, read into the state as they come, a batch at a time (pushedRecords.ts). */
  private readonly records: PushedRecords;
  private readonly lines: JsonLinesBuffer;
  /** Line numbers of the non-blank lines in order: pi's entry list, header included (firstKeptEntryIndex indexes it). */
  private readonly entryLines: number[] = [];
  private state = new ReadState(this.context.textKeeper);

  /** `readAheadRecords`: how many pushed records wait before push() reads them (tests vary it). */
  constructor(context?: ReaderContext, readAheadRecords = READ_AHEAD_RECORDS) {
    super(context);
    this.records = new PushedRecords({ dropText: true }, readAheadRecords);
    this.lines = this.records.lines;
  }

  push(line: RawLine): void {
    while (this.entryLines.length > 0 && this.entryLines[this.entryLines.length - 1] >= line.line) this.entryLines.pop();
    if (line.text.trim() !== '') this.entryLines.push(line.line);
    if (this.records.push(line)) this.state = new ReadState(this.context.textKeeper);
    if (this.records.due(this.state.read)) this.readRecords(this.state);
  }

  protected stateKey(): string {
    return `${this.records.key()}:${this.entryLines.length}`;
  }

  /**
   * Every checkpoint read (TranscriptReader.settledCheckpoints): a compaction reads only the lines before it, and
   * no turn changes once made. The records pushed so far are read first, so a compaction counts from its line.
   */
  settledCheckpoints(): number {
    const state = this.state;
    if (this.lines.records.length > state.read) this.readRecords(state);
    return state.checkpoints.length;
  }

  protected build(): Transcript {
    const state = this.state;
    this.readRecords(state);
    const problems: Problem[] = [...this.lines.problems, ...state.problems];
    problems.sort((a, b) => a.line - b.line);
    return {
      format: this.format,
      turns: state.turns.slice(),
      checkpoints: state.checkpoints.slice(),
      problems,
      lineCount: this.lines.lineCount,
    };
  }

  /** The index of line `n` in pi's entry list (entryLines), or undefined when it is no entry. */
  private entryIndexOf(n: number): number | undefined {
    return indexInSorted(this.entryLines, n);
  }

  /**
   * Reads the records pushed since the last read into `state`. A reader whose lines are pushed once each
   * (ReaderContext.linesOnce, which readOnce and keepTurn imply: no record is read again) then lets the records go,
   * and hands each turn to the context's keepTurn as it is made: no turn changes once made.
   */
  private readRecords(state: ReadState): void {
    const records = this.lines.records;
    const { problems, turns, turnLines, checkpoints, calls, used, entries, unknown } = state;
    const keep = this.context.keepTurn;
    for (let r = state.read; r < records.length; r++) {
      const { line, value } = records[r];
      const n = line.line;
      if (!isObject(value)) {
        problems.push({
          line: n,
          severity: 'error',
          message: `line ${n} is not a JSON object, so it is not a pi session entry; it was skipped.`,
        });
        continue;
      }
      const type = str(value.type) ?? '(no type)';
      const id = str(value.id);
      if (type !== 'session' && id !== undefined && !entries.has(id)) entries.set(id, { line: n, parentId: str(value.parentId) });
      if (type === 'session' || QUIET_TYPES.has(type)) continue;
      if (type === 'compaction') {
        // Sealed: never changed once made, so the checkpoint memo keeps it as it is (core/sealedRecord.ts).
        checkpoints.push(sealRecord(this.checkpointOf(value, line, state)));
        continue;
      }
      let shape: TurnShape | 'skip' | undefined;
      if (type === 'message') {
        if (!isObject(value.message)) {
          problems.push({
            line: n,
            severity: 'warning',
            message: `line ${n} is a pi message entry without a "message" object; it was skipped.`,
          });
          continue;
        }
        shape = messageShape(value.message);
        if (shape === undefined) {
          problems.push({
            line: n,
            severity: 'warning',
            message: `line ${n} is a pi message with role ${JSON.stringify(value.message.role ?? null)}, which Compaction Lens does not read; it was skipped.`,
          });
          continue;
        }
      } else if (type === 'custom_message') {
        shape = { role: 'user', text: contentText(value.content), label: str(value.customType) ?? 'custom message', calls: [] };
      } else if (type === 'branch_summary') {
        shape = { role: 'system', text: typeof value.summary === 'string' ? value.summary : '', label: 'branch summary', calls: [] };
      } else {
        if (!unknown.has(type)) {
          unknown.add(type);
          problems.push({
            line: n,
            severity: 'info',
            message: `line ${n} has entry type ${type}, which Compaction Lens does not read; entries of this type were skipped.`,
          });
        }
        continue;
      }
      if (shape === 'skip') continue;
      let turnId: TurnId = id ?? this.entryIndexOf(n) ?? n;
      if (used.has(String(turnId))) {
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: entry id ${String(turnId)} is used by an earlier entry; this one is shown as "line ${n}".`,
        });
        turnId = `line ${n}`;
      }
      used.add(String(turnId));
      const turn: Turn = { id: turnId, role: shape.role, text: shape.text, span: lineSpan(line), label: shape.label };
      if (shape.answers !== undefined) {
        const answers = calls.answersFor([shape.answers]);
        if (answers !== undefined) turn.answers = answers;
      }
      if (shape.error === true) turn.error = true;
      if (shape.reasoning) turn.reasoning = shape.reasoning;
      for (const call of shape.calls) calls.add(call.id, turnId, call.text);
      turns.push(keep?.(turn) ?? turn);
      turnLines.push(n);
    }
    state.read = this.records.letGo(this.context) ? 0 : records.length;
  }

  private checkpointOf(value: JsonObject, line: RawLine, state: ReadState): Checkpoint {
    const { turns, turnLines, entries, problems } = state;
    const n = line.line;
    const summaryId = str(value.id) ?? `C${state.checkpoints.length + 1}`;
    const summary = typeof value.summary === 'string' ? value.summary : '';
    const notes: string[] = [];
    const ownIndex = this.entryIndexOf(n) ?? Number.POSITIVE_INFINITY;

    // The line of the first kept entry, or a reason it is not known.
    let firstKept: number | undefined;
    let missing: string | undefined;
    const keptId = str(value.firstKeptEntryId);
    const keptIndex = value.firstKeptEntryIndex;
    if (keptId !== undefined) {
      const entry = entries.get(keptId);
      if (entry !== undefined && entry.line < n) {
        firstKept = entry.line;
        notes.push(`firstKeptEntryId ${keptId} is line ${entry.line}: the turns before it are claimed`);
      } else missing = `its firstKeptEntryId ${keptId} is not an entry before it in this file`;
    } else if (typeof keptIndex === 'number' && Number.isInteger(keptIndex) && keptIndex >= 0) {
      if (keptIndex < this.entryLines.length && keptIndex < ownIndex) {
        firstKept = this.entryLines[keptIndex];
        notes.push(
          `firstKeptEntryIndex ${keptIndex} is line ${firstKept} (entries counted from the session header, entry 0): the turns before it are claimed`,
        );
      } else missing = `its firstKeptEntryIndex ${keptIndex} is not an entry before it (it is entry ${ownIndex})`;
    } else {
      missing = 'it has no firstKeptEntryId or firstKeptEntryIndex';
    }
    if (missing !== undefined) {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: compaction ${summaryId}: ${missing}, so which turns pi kept is not known; every turn before it is claimed (an inference).`,
      });
      notes.push(`${missing}: every turn before the compaction is claimed (an inference)`);
    }

    // Version 2+: only the compaction's own branch (its chain of parents) is claimed.
    const branch = this.branchOf(value, n, entries);
    if (branch.note !== undefined) notes.push(branch.note);
    const claimedIds: TurnId[] = [];
    for (let i = 0; i < turns.length; i++) {
      const turnLine = turnLines[i];
      if (firstKept !== undefined && turnLine >= firstKept) break; // turns are in line order
      if (branch.lines === undefined || branch.lines.has(turnLine)) claimedIds.push(turns[i].id);
    }
    const checkpoint: Checkpoint = {
      summaryId,
      summary,
      claimedIds,
      span: lineSpan(line),
      turnsBefore: turns.length,
      notes,
    };
    if (typeof value.tokensBefore === 'number' && value.tokensBefore > 0) {
      checkpoint.recordedPrefixTokens = value.tokensBefore;
      notes.push(`tokensBefore ${groupDigits(value.tokensBefore)} (recorded by pi)`);
    }
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    return checkpoint;
  }

  /**
   * The lines of the entries on a compaction's branch (its parent, that one's parent… up to the root), when it
   * names a parent and the chain reaches the root through entries before it; undefined lines otherwise.
   */
  private branchOf(value: JsonObject, n: number, entries: ReadonlyMap<string, Entry>): { lines?: Set<number>; note?: string } {
    let parent = str(value.parentId);
    if (parent === undefined) return {};
    const lines = new Set<number>();
    const seen = new Set<string>();
    while (parent !== undefined) {
      const entry = entries.get(parent);
      if (entry === undefined || entry.line >= n || seen.has(parent)) {
        return {
          note: `its chain of parentIds breaks at ${parent} (not an entry before it, or a cycle): the turns are taken in file order, other branches included`,
        };
      }
      seen.add(parent);
      lines.add(entry.line);
      parent = entry.parentId;
    }
    return { lines };
  }
}

// Reader for plain message arrays: OpenAI chat ({role, content, tool_calls, tool_call_id}), OpenAI Responses input
// items ({type:"message"|"function_call"|…}), Anthropic messages ({role, content:[text|tool_use|tool_result…]}).
// Accepted as a JSON array, a request body ({"messages": […]} with an optional "system", or {"input": […]}), or JSONL
// with one message per line. A JSONL file whose lines are whole conversations ({"messages": […]} per line, as in
// fine-tuning sets) is read from its first line only (a problem says so).
//
// Turns: one per message or item, id = its position in the array (0, 1, 2…; the "system" field is "system"). A tool
// result `answers` the turn holding its call: `tool_call_id` ↔ `tool_calls[].id` (OpenAI chat), tool_result
// `tool_use_id` ↔ tool_use `id` (Anthropic), function_call_output ↔ function_call by `call_id` (Responses).
// Summaries: an Anthropic `compaction` content block (its text is the summary), an OpenAI `compaction` item
// (encrypted: opaque), or a message whose text opens with a known summary phrase. A summary is not a turn; it claims
// the turns before it since the previous summary (no pointer set is recorded by these APIs).
// Read as the lines are pushed (streamedDocument.ts): an array an element at a time, JSONL a batch of records at a
// time, and a request body's `messages` or `input` an element at a time (objectLists.ts). A body's `system` turn comes
// first, but may be written after the list: it is read at the end, and the list's checkpoints are made again after it
// (withSystemFirst), as a read of the whole body makes them. The one difference: a tool call in a `system` field (no
// API puts one there) is not linked to a result in the list, which was read before it.

import type { Checkpoint, Problem, Role, SourceSpan, TextKeeper, Transcript, Turn } from '../core/model';
import { sealRecord } from '../core/sealedRecord';
import { isObject, type JsonLine, type JsonObject } from './jsonLines';
import { locateInLine } from './jsonSpans';
import type { OutlineDocument } from './objectLists';
import { StreamedDocumentReader, type WholeDocument } from './streamedDocument';
import { lineSpan } from './sourceSpan';
import { valueText, textOf, toolCallText, toolCallsText } from './textOf';
import { CallLinks, answeredIdsOf, callsOf } from './toolLinks';

/** Opening words of the summaries agents inject as messages. */
export const SUMMARY_OPENINGS: readonly string[] = [
  'This session is being continued from a previous conversation',
  'Another language model started to solve this problem',
  'Here is a summary of the conversation to date:',
  'Summary of the conversation so far:',
];
const NINE_SECTIONS = /(?:^|\n)[^\S\n]*\**1\.\s*(?:\*+\s*)?Primary Request and Intent/i; // unambiguous: linear on runs of newlines, spaces or stars

/** The summary phrase a text opens with, or a Letta system_alert; undefined when it is not a summary. */
export function summaryOpening(text: string): string | undefined {
  const head = text.trimStart();
  const phrase = SUMMARY_OPENINGS.find((p) => head.startsWith(p));
  if (phrase !== undefined) return phrase;
  if (head.startsWith('{') && /"type"\s*:\s*"system_alert"/.test(head.slice(0, 200))) return 'system_alert';
  return undefined;
}

interface Item {
  value: unknown;
  span: SourceSpan;
  /** Position in the array, or "system" for a request's system field. */
  id: number | string;
}

/** The problem of a JSON document that is neither an array of messages nor a request body holding one. */
function notAMessageArray(whole: SourceSpan): Problem {
  return {
    line: whole.startLine,
    severity: 'error',
    message: `the file is JSON but not a message array: expected [ {role, content}, … ] or {"messages": [ … ]}.`,
  };
}

/** A request body's list of messages: its `messages`, else its `input`; undefined when it has neither as an array. */
function listOfBody(value: unknown): unknown[] | undefined {
  if (!isObject(value)) return undefined;
  return Array.isArray(value.messages) ? value.messages : Array.isArray(value.input) ? value.input : undefined;
}

/**
 * A request body's `system` as a system message, if it has one. Its span is the body's (`span`); while the body is
 * not `complete` (a syntax error, or still being written) only its `{`, as its end is not known.
 */
function systemOfBody(body: JsonObject, span: SourceSpan, complete: boolean): Item | undefined {
  if (body.system === undefined || body.system === null) return undefined;
  const at = complete
    ? span
    : { startLine: span.startLine, endLine: span.startLine, startOffset: span.startOffset, endOffset: span.startOffset + 1 };
  return { value: { role: 'system', content: body.system }, span: at, id: 'system' };
}

function roleOf(item: JsonObject): Role {
  const role = item.role;
  if (role === 'user') {
    const blocks = Array.isArray(item.content) ? item.content : [];
    if (blocks.length > 0 && blocks.every((b) => isObject(b) && b.type === 'tool_result')) return 'tool';
    return 'user';
  }
  if (role === 'assistant' || role === 'model') return 'assistant';
  if (role === 'tool' || role === 'function') return 'tool';
  if (item.type === 'function_call' || item.type === 'reasoning') return 'assistant';
  if (item.type === 'function_call_output') return 'tool';
  return 'system';
}

function textOfItem(item: JsonObject): string {
  if (item.type === 'function_call') return toolCallText(item.name, item.arguments);
  if (item.type === 'function_call_output') return typeof item.output === 'string' ? item.output : textOf(item.output);
  if (item.type === 'reasoning') return Array.isArray(item.summary) ? textOf(item.summary) : '';
  const parts = [textOf(item.content), toolCallsText(item.tool_calls)];
  if (isObject(item.function_call)) parts.push(toolCallText(item.function_call.name, item.function_call.arguments));
  return parts.filter((p) => p !== '').join('\n');
}

/** What a checkpoint was made of, to make it again after a request's `system` (withSystemFirst). */
interface CheckpointMaking {
  item: Omit<Item, 'value'>;
  summary: string;
  how: string;
  opaque: boolean;
  /** How many turns were read before it. */
  at: number;
}

/** What the reader has read so far. */
class ReadState {
  readonly problems: Problem[] = [];
  readonly turns: Turn[] = [];
  readonly checkpoints: Checkpoint[] = [];
  readonly calls: CallLinks;
  /** Where the turns since the last summary start. */
  segmentStart = 0;
  /** How each checkpoint was made, in order. */
  readonly made: CheckpointMaking[] = [];
  /** The problems the making of checkpoints added (an encrypted summary's), made again with them. */
  readonly checkpointProblems = new Set<Problem>();
  /** JSON Lines whose first record is a whole conversation: how many records, and the lines of the first two. */
  conversations?: { records: number; firstLine: number; secondLine?: number };

  /** `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  constructor(keeper?: TextKeeper) {
    this.calls = new CallLinks(keeper);
  }
}

export class MessageArrayReader extends StreamedDocumentReader<ReadState> {
  readonly format = 'message-array' as const;
  protected readonly documentName = 'message array';
  /** A request body's lists, read an element at a time: only the root's (readBody reads no other). */
  protected override readonly listKey = ['messages', 'input'];
  protected override readonly listMaxLevel = 0;

  protected newState(keeper: TextKeeper | undefined): ReadState {
    return new ReadState(keeper);
  }

  /**
   * A record is a message, unless the first is a whole conversation ({"messages": […]} or {"input": […]}): then
   * only that one is read, and the others are counted.
   */
  protected readRecord(state: ReadState, { line, value }: JsonLine, index: number): void {
    const conversations = state.conversations;
    if (conversations !== undefined) {
      conversations.records++;
      conversations.secondLine ??= line.line;
      return;
    }
    if (index === 0 && isObject(value) && (Array.isArray(value.messages) || Array.isArray(value.input))) {
      state.conversations = { records: 1, firstLine: line.line };
      const inLine = locateInLine(line);
      this.readBody(state, inLine.value, (node) => inLine.spanOf(node));
      return;
    }
    this.readItem(state, { value, span: lineSpan(line), id: index });
  }

  protected readElement(state: ReadState, value: unknown, span: SourceSpan, index: number): void {
    this.readItem(state, { value, span, id: index });
  }

  protected readWhole(state: ReadState, { located, spanOf, whole }: WholeDocument): void {
    const complete = located.error === undefined;
    if (located.value !== undefined && !this.readBody(state, located.value, spanOf, complete)) state.problems.push(notAMessageArray(whole));
  }

  /**
   * A request body read a message at a time: the list a read of the whole body takes was read into a state of its
   * own (or, past the lists read so, is in the outline and read now); its `system`, in the outline, goes first.
   */
  protected override transcriptOfOutline(
    outline: OutlineDocument,
    stateOf: (list: unknown) => ReadState | undefined,
    fresh: () => ReadState,
    problems: Problem[],
    lineCount: number,
  ): Transcript {
    const value = outline.located.value;
    const complete = outline.error === undefined;
    const list = listOfBody(value);
    let state = list === undefined ? undefined : stateOf(list);
    if (state === undefined) {
      state = fresh();
      const read = value !== undefined && this.readBody(state, value, (node) => outline.spanOf(node), complete);
      if (value !== undefined && !read) state.problems.push(notAMessageArray(outline.whole));
    } else {
      const system = systemOfBody(value as JsonObject, outline.spanOf(value), complete);
      if (system !== undefined) state = this.withSystemFirst(state, system, fresh());
    }
    return this.transcriptOf(state, problems, lineCount);
  }

  /**
   * Every summary read (settled once made), in an array or JSON Lines: it claims the turns before it since the
   * previous one. (A request body's checkpoints are made again once its `system` is read, so none is settled there:
   * the base class says none for an object.)
   */
  protected override checkpointsIn(state: ReadState): number {
    return state.checkpoints.length;
  }

  protected transcriptOf(state: ReadState, problems: Problem[], lineCount: number): Transcript {
    const conversations = state.conversations;
    if (conversations !== undefined && conversations.secondLine !== undefined) {
      problems.push({
        line: conversations.secondLine,
        severity: 'info',
        message: `this file holds ${conversations.records} conversations (one per line); only the first (line ${conversations.firstLine}) is read. Split the file to check the others.`,
      });
    }
    const all = [...problems, ...state.problems];
    all.sort((a, b) => a.line - b.line);
    return { format: this.format, turns: state.turns.slice(), checkpoints: state.checkpoints.slice(), problems: all, lineCount };
  }

  /**
   * Reads an array of messages, or a request body's `system`, then its `messages` or `input`; false when `value` is
   * neither. `complete`: the document has no syntax error (systemOfBody).
   */
  private readBody(state: ReadState, value: unknown, spanOf: (node: unknown) => SourceSpan, complete = true): boolean {
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.readItem(state, { value: v, span: spanOf(v), id: i }));
      return true;
    }
    const list = listOfBody(value);
    if (list === undefined) return false;
    const system = systemOfBody(value as JsonObject, spanOf(value), complete);
    if (system !== undefined) this.readItem(state, system);
    list.forEach((v, i) => this.readItem(state, { value: v, span: spanOf(v), id: i }));
    return true;
  }

  /**
   * The state of a request's `system` read first, then the turns of `list` (its list, read before it): each of its
   * checkpoints is made again, in its place among those turns, as a read of the whole body makes it. The system's
   * own problems come first; the list's keep their order, those of its checkpoints made again.
   */
  private withSystemFirst(list: ReadState, system: Item, merged: ReadState): ReadState {
    this.readItem(merged, system);
    const own = merged.problems.length;
    let next = 0;
    for (const making of list.made) {
      while (next < making.at) merged.turns.push(list.turns[next++]);
      this.addCheckpoint(merged, making.item, making.summary, making.how, making.opaque);
    }
    while (next < list.turns.length) merged.turns.push(list.turns[next++]);
    const again = merged.problems.splice(own);
    let k = 0;
    for (const problem of list.problems) merged.problems.push(list.checkpointProblems.has(problem) ? again[k++] : problem);
    return merged;
  }

  /** Adds the turn of a message, linked to the calls it answers; its own calls are recorded. */
  private addTurn(state: ReadState, turn: Turn, message: JsonObject): void {
    const answers = state.calls.answersFor(answeredIdsOf(message));
    if (answers !== undefined) turn.answers = answers;
    for (const call of callsOf(message)) state.calls.add(call.id, turn.id, call.text);
    state.turns.push(this.keepTurn(turn));
  }

  /** A summary claims the turns before it since the previous one. */
  private addCheckpoint(state: ReadState, item: Omit<Item, 'value'>, summary: string, how: string, opaque: boolean): void {
    const { turns, checkpoints, problems } = state;
    const n = item.span.startLine;
    const claimedIds = turns.slice(state.segmentStart).map((t) => t.id);
    const notes = [
      `${how}; no pointer set is recorded, so it claims the ${claimedIds.length} turns before it since the ${checkpoints.length === 0 ? 'start' : 'previous summary'}`,
    ];
    const checkpoint: Checkpoint = {
      summaryId: `message ${String(item.id)}`,
      summary,
      claimedIds,
      span: item.span,
      turnsBefore: turns.length,
      notes,
    };
    if (opaque) {
      checkpoint.opaque = true;
      notes.unshift('summary is encrypted (OpenAI compaction item): coverage cannot be verified');
      const problem: Problem = {
        line: n,
        severity: 'info',
        message: `line ${n}: the compaction at message ${String(item.id)} is encrypted, so whether it covers the ${claimedIds.length} turns before it cannot be verified.`,
      };
      problems.push(problem);
      state.checkpointProblems.add(problem);
    }
    if (!opaque && NINE_SECTIONS.test(summary)) checkpoint.truncationHints = { expectedLastSection: 9 };
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    // Sealed: never changed once made, so the checkpoint memo keeps it as it is, not a copy (core/sealedRecord.ts).
    checkpoints.push(sealRecord(checkpoint));
    state.made.push({ item: { span: item.span, id: item.id }, summary, how, opaque, at: turns.length });
    state.segmentStart = turns.length;
  }

  /** Reads one message or item: a turn, a summary (a checkpoint), or both for an Anthropic compaction block. */
  private readItem(state: ReadState, item: Item): void {
    const { problems } = state;
    const n = item.span.startLine;
    const value = item.value;
    if (!isObject(value)) {
      problems.push({
        line: n,
        severity: 'error',
        message: `line ${n}: message ${String(item.id)} is not a JSON object; it was skipped.`,
      });
      return;
    }
    if (value.type === 'compaction' || value.type === 'compaction_summary') {
      const readable = typeof value.content === 'string' || Array.isArray(value.content);
      this.addCheckpoint(
        state,
        item,
        readable ? textOf(value.content) : '',
        'OpenAI compaction item',
        !readable && value.encrypted_content !== undefined,
      );
      return;
    }
    if (value.role === undefined && value.type === undefined) {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: message ${String(item.id)} has no "role"; it is not a chat message and was skipped.`,
      });
      return;
    }
    const blocks = Array.isArray(value.content) ? value.content : [];
    const compaction = blocks.find((b) => isObject(b) && b.type === 'compaction') as JsonObject | undefined;
    if (compaction !== undefined) {
      const readable = compaction.content !== undefined && compaction.content !== null;
      this.addCheckpoint(
        state,
        item,
        textOf(compaction.content),
        'Anthropic compaction block',
        !readable && compaction.encrypted_content !== undefined,
      );
      const rest = blocks.filter((b) => b !== compaction);
      const text = textOf(rest);
      if (text.trim() !== '')
        this.addTurn(state, { id: item.id, role: roleOf(value), text, span: item.span, label: valueText(value.role ?? value.type) }, value);
      return;
    }
    const text = textOfItem(value);
    const opening = summaryOpening(text);
    if (opening !== undefined) {
      this.addCheckpoint(
        state,
        item,
        text,
        opening === 'system_alert' ? 'a Letta system_alert message' : `a summary message (opens with "${opening}")`,
        false,
      );
      return;
    }
    this.addTurn(state, { id: item.id, role: roleOf(value), text, span: item.span, label: valueText(value.role ?? value.type) }, value);
  }
}

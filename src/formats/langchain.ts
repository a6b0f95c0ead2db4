// Reader for LangMem / LangChain / Letta conversations: a LangGraph state dump (JSON object holding `messages` and,
// for LangMem, a `running_summary`, possibly under `values`, `channel_values` or `context`), a JSON array of
// messages, or JSONL with one message per line. Messages may be LangChain dicts ({type: human|ai|system|tool, content,
// id, additional_kwargs, tool_calls}), LangChain serialised constructors ({lc:1, id:[…,"HumanMessage"], kwargs}),
// or Letta messages ({id:"message-…", role, content|text} or {message_type: user_message|assistant_message|…}).
// A state dump's `messages` lists are read a message at a time, the rest of it kept as an outline (objectLists.ts);
// the list it shows is the first `messages` found breadth first, as in a read of the whole document.
//
// Turns: one per message, id = the message id (its position when it has none or repeats one). A tool message
// `answers` the message whose call its `tool_call_id` names (`tool_calls[].id`, a Letta `tool_call`, or an Anthropic
// tool_use block; a tool_result block's `tool_use_id`, a Letta `tool_returns[].tool_call_id` likewise).
// Checkpoints:
//  - LangMem `running_summary {summary, summarized_message_ids, last_summarized_message_id}`: claims exactly
//    summarized_message_ids — LangMem adds every id it was given, even when it trimmed the input. The injected
//    "Summary of the conversation so far:" system message is the same summary and is not a turn.
//  - LangChain summarisation message (additional_kwargs.lc_source == "summarization", "Here is a summary of the
//    conversation to date:"): no pointer set is stored; it claims every message before it since the previous summary.
//    Which of those the summariser kept verbatim shows only in the lines after it (the same ids again), and a
//    checkpoint's result depends only on the records up to it, so kept messages are claimed too.
//  - A running_summary without last_summarized_message_id (and none of its ids before it) sits where its own record
//    sits: after the messages that precede it in the file. In a single-document state that is its place in the
//    document text, so messages appended to the list after it do not move it.
//  - Letta system_alert user message ("prior messages (H of T total messages) have been hidden"): counts only, no
//    ids; it claims the first H messages of the file (other than system prompts) before the alert, by position.

import type { Checkpoint, Problem, Role, SourceSpan, TextKeeper, Transcript, Turn, TurnId } from '../core/model';
import { sealRecord } from '../core/sealedRecord';
import { isObject, type JsonLine, type JsonObject } from './jsonLines';
import { locateInLine } from './jsonSpans';
import type { OutlineDocument } from './objectLists';
import { StreamedDocumentReader, type WholeDocument } from './streamedDocument';
import { lineSpan } from './sourceSpan';
import { valueText, textOf, toolCallText, toolCallsText } from './textOf';
import { CallLinks, answeredIdsOf, callsOf, type ToolCall } from './toolLinks';

const LANGCHAIN_OPENING = 'Here is a summary of the conversation to date:';
const LANGMEM_OPENING = 'Summary of the conversation so far:';
const LETTA_HIDDEN = /prior messages \((\d+) of (\d+) total messages\) have been hidden/;

interface Located {
  value: unknown;
  span: SourceSpan;
}

/** The problem of a JSON file that is not a state or a message list. */
function notAState(whole: SourceSpan): Problem {
  return {
    line: whole.startLine,
    severity: 'error',
    message: 'the file is JSON but holds no "messages" list and no "running_summary": it is not a LangGraph state or a message list.',
  };
}

/** A message in one shape (LangChain dict or constructor, or Letta), as `normalize` gives it. */
export interface Message {
  id?: string;
  role: Role;
  text: string;
  kind: string;
  summarization: boolean;
  /** The tool calls it makes, by id. */
  calls: ToolCall[];
  /** The ids of the tool calls it answers. */
  answers: string[];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const CLASS_TYPES: Record<string, string> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  SystemMessage: 'system',
  ToolMessage: 'tool',
  FunctionMessage: 'tool',
  ChatMessage: 'chat',
  RemoveMessage: 'remove',
};

const ROLE_OF_TYPE: Record<string, Role> = {
  human: 'user',
  user: 'user',
  user_message: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  assistant_message: 'assistant',
  reasoning_message: 'assistant',
  hidden_reasoning_message: 'assistant',
  tool_call_message: 'assistant',
  system: 'system',
  system_message: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
  tool_return_message: 'tool',
};

/** A LangChain / Letta message in one shape; undefined when `value` is not a message (or is a RemoveMessage). */
export function normalize(value: unknown): Message | undefined {
  if (!isObject(value)) return undefined;
  let fields: JsonObject = value;
  let kind: string | undefined;
  if (value.lc === 1 && Array.isArray(value.id) && isObject(value.kwargs)) {
    fields = value.kwargs;
    const cls = valueText(value.id[value.id.length - 1] ?? '');
    kind = CLASS_TYPES[cls] ?? cls;
  } else {
    kind = str(value.message_type) ?? str(value.type) ?? str(value.role);
  }
  if (kind === 'chat') kind = str(fields.role) ?? 'user';
  if (kind === undefined || kind === 'remove') return undefined;
  const role = ROLE_OF_TYPE[kind] ?? (str(fields.role) !== undefined ? ROLE_OF_TYPE[String(fields.role)] : undefined);
  if (role === undefined) return undefined;
  const parts = [textOf(fields.content ?? fields.text ?? fields.reasoning), toolCallsText(fields.tool_calls)];
  if (isObject(fields.tool_call)) parts.push(toolCallText(fields.tool_call.name, fields.tool_call.arguments));
  if (fields.tool_return !== undefined) parts.push(textOf(fields.tool_return));
  const extra = isObject(fields.additional_kwargs) ? fields.additional_kwargs : {};
  const metadata = isObject(fields.response_metadata) ? fields.response_metadata : {};
  return {
    id: str(fields.id),
    role,
    text: parts.filter((p) => p !== '').join('\n'),
    kind,
    summarization: extra.lc_source === 'summarization' || metadata.lc_source === 'summarization',
    calls: callsOf(fields),
    answers: answeredIdsOf(fields),
  };
}

/** The first property named `key` (breadth first, a few levels deep) whose value passes `test`. */
function findKey(root: unknown, key: string, test: (v: unknown) => boolean, depth = 4): unknown {
  let level: unknown[] = [root];
  for (let d = 0; d <= depth && level.length > 0; d++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (!isObject(node)) continue;
      if (key in node && test(node[key])) return node[key];
      for (const child of Object.values(node)) if (isObject(child)) next.push(child);
    }
    level = next;
  }
  return undefined;
}

/** A state's list of messages and LangMem running summary: the first of each found, breadth first. */
function partsOfState(value: unknown): { list: unknown[] | undefined; summary: unknown } {
  return {
    list: findKey(value, 'messages', Array.isArray) as unknown[] | undefined,
    summary: findKey(value, 'running_summary', isObject),
  };
}

/** A Letta system_alert: its message (the summary), the hidden-message counts it states, the object itself. */
export interface LettaAlert {
  message: string;
  hidden?: number;
  total?: number;
  alert: JsonObject;
}

/** The alert when `value` is a Letta system_alert object ({type: "system_alert", message}). */
export function lettaAlertObject(value: unknown): LettaAlert | undefined {
  if (!isObject(value) || value.type !== 'system_alert') return undefined;
  const message = typeof value.message === 'string' ? value.message : '';
  const match = LETTA_HIDDEN.exec(message);
  return match ? { message, hidden: Number(match[1]), total: Number(match[2]), alert: value } : { message, alert: value };
}

/** The alert when the whole of `text` is a Letta system_alert as JSON (an alert quoted inside other text is not). */
export function lettaAlert(text: string): LettaAlert | undefined {
  const head = text.trimStart();
  if (!head.startsWith('{')) return undefined;
  try {
    return lettaAlertObject(JSON.parse(head) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * The checkpoints the summaries make of the messages read so far, on one of two assumptions about the file: that it
 * holds no LangMem running summary (a LangMem summary message is then a checkpoint of its own) or that it does (the
 * message is the running summary injected into the prompt, not a turn). A running summary may come anywhere in the
 * file, so both are kept while it is read and each finish takes the one that holds.
 */
class Track {
  readonly checkpoints: Checkpoint[] = [];
  /** Where the turns since the last summary start. */
  segmentStart = 0;
}

/** What the reader has read so far. */
class ReadState {
  readonly problems: Problem[] = [];
  readonly turns: Turn[] = [];
  readonly used = new Set<string>();
  readonly calls: CallLinks;
  readonly withoutRunning = new Track();
  readonly withRunning = new Track();
  /** Both tracks: what every summary but a LangMem summary message adds to each. */
  readonly tracks = [this.withoutRunning, this.withRunning];
  /** The LangMem running summaries found, made checkpoints at each finish (they may claim messages after them). */
  readonly running: Located[] = [];
  /** How many messages were read (a message's place, for one without an id). */
  messages = 0;
  jsonl = false;

  /** `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  constructor(keeper?: TextKeeper) {
    this.calls = new CallLinks(keeper);
  }
}

export class LangChainReader extends StreamedDocumentReader<ReadState> {
  readonly format = 'langchain' as const;
  protected readonly documentName = 'LangChain / LangMem / Letta file';
  /** A state document's lists of messages are read a message at a time. */
  protected override readonly listKey = 'messages';

  protected newState(keeper: TextKeeper | undefined): ReadState {
    return new ReadState(keeper);
  }

  /** A record is a message, or a state holding messages and a running summary; its messages are read as they come. */
  protected readRecord(state: ReadState, { line, value }: JsonLine): void {
    state.jsonl = true;
    if (normalize(value) !== undefined || !isObject(value)) {
      this.readMessage(state, { value, span: lineSpan(line) });
      return;
    }
    const inLine = locateInLine(line);
    if (!this.readState(state, inLine.value, (node) => inLine.spanOf(node))) this.readMessage(state, { value, span: lineSpan(line) });
  }

  /** An element of an array is a message. */
  protected readElement(state: ReadState, value: unknown, span: SourceSpan): void {
    this.readMessage(state, { value, span });
  }

  protected readWhole(state: ReadState, { located, spanOf, whole }: WholeDocument): void {
    if (located.value !== undefined && !this.readState(state, located.value, spanOf)) state.problems.push(notAState(whole));
  }

  /**
   * A state document read a message at a time: the list the whole document's read would take (the first `messages`
   * found) was read into a state of its own; the running summary is in the outline.
   */
  protected override transcriptOfOutline(
    outline: OutlineDocument,
    stateOf: (list: unknown) => ReadState | undefined,
    fresh: () => ReadState,
    problems: Problem[],
    lineCount: number,
  ): Transcript {
    const value = outline.located.value;
    if (value === undefined) return this.transcriptWith(fresh(), [], problems, lineCount);
    const { list, summary } = partsOfState(value);
    const running = summary === undefined ? [] : [{ value: summary, span: outline.spanOf(summary) }];
    let state = list === undefined ? undefined : stateOf(list);
    if (state === undefined) {
      // No list, or one read with the outline (past the lists read a message at a time): read here.
      state = fresh();
      for (const m of list ?? []) this.readMessage(state, { value: m, span: outline.spanOf(m) });
    }
    if (list === undefined && summary === undefined) problems.push(notAState(outline.whole));
    return this.transcriptWith(state, running, problems, lineCount);
  }

  protected transcriptOf(state: ReadState, problems: Problem[], lineCount: number): Transcript {
    return this.transcriptWith(state, state.running, problems, lineCount);
  }

  /** The transcript of a state, with its running summaries (`running`). */
  private transcriptWith(state: ReadState, running: readonly Located[], problems: Problem[], lineCount: number): Transcript {
    // A running summary anywhere in the file decides which track holds; its own checkpoints are made now.
    const hasRunning = running.length > 0;
    const track = hasRunning ? state.withRunning : state.withoutRunning;
    const checkpoints = track.checkpoints.slice();
    const all = [...problems, ...state.problems];
    running.forEach((r, k) => checkpoints.push(this.runningSummary(r, k, state, all)));
    all.sort((a, b) => a.line - b.line);
    checkpoints.sort((a, b) => a.turnsBefore - b.turnsBefore);
    return { format: this.format, turns: state.turns.slice(), checkpoints, problems: all, lineCount };
  }

  /** Reads the messages of a state (or an array of messages) and keeps its running summary; false when it holds neither. */
  private readState(state: ReadState, value: unknown, spanOf: (node: unknown) => SourceSpan): boolean {
    if (Array.isArray(value)) {
      for (const m of value) this.readMessage(state, { value: m, span: spanOf(m) });
      return true;
    }
    const { list, summary } = partsOfState(value);
    if (summary !== undefined) state.running.push({ value: summary, span: spanOf(summary) });
    for (const m of list ?? []) this.readMessage(state, { value: m, span: spanOf(m) });
    return list !== undefined || summary !== undefined;
  }

  /**
   * Adds a summary's checkpoint to a track, after the turns read so far and claiming `claimed`: the turns after it
   * start the next segment.
   */
  private finishCheckpoint(
    state: ReadState,
    track: Track,
    summary: { summaryId: string; summary: string; claimed: readonly Turn[]; span: SourceSpan; notes: string[] },
  ): void {
    const { summaryId, claimed, span, notes } = summary;
    const turnsBefore = state.turns.length;
    track.checkpoints.push(
      this.withBudget({ summaryId, summary: summary.summary, claimedIds: claimed.map((t) => t.id), span, turnsBefore, notes }),
    );
    track.segmentStart = turnsBefore;
  }

  /**
   * The checkpoint with the configured default budget, when there is one (LangChain records none), sealed: never
   * changed once made, so the checkpoint memo keeps it as it is, not a copy (core/sealedRecord.ts).
   */
  private withBudget(checkpoint: Checkpoint): Checkpoint {
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    return sealRecord(checkpoint);
  }

  /**
   * Reads the next message: a turn, a summary (a checkpoint in each track, or in one: a LangMem summary message), or
   * a message that is neither.
   */
  private readMessage(state: ReadState, located: Located): void {
    const { problems, turns, used, calls } = state;
    const i = state.messages++;
    const n = located.span.startLine;
    const message = normalize(located.value);
    if (message === undefined) {
      if (!(
        isObject(located.value) &&
        (located.value.type === 'remove' ||
          (Array.isArray(located.value.id) && valueText(located.value.id[located.value.id.length - 1]) === 'RemoveMessage'))
      )) {
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: message ${i} is not a LangChain, LangMem or Letta message (no known type or role); it was skipped.`,
        });
      }
      return;
    }
    const alert = message.role === 'user' ? lettaAlert(message.text) : undefined;
    if (alert !== undefined) {
      const eligible = turns.filter((t) => t.role !== 'system');
      if (alert.hidden !== undefined && eligible.length < alert.hidden) {
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: the Letta system_alert says ${alert.hidden} messages were hidden, but only ${eligible.length} messages precede it in this file; the others are not here.`,
        });
      }
      for (const track of state.tracks) {
        const notes: string[] = [];
        let claimed: Turn[];
        if (alert.hidden !== undefined) {
          claimed = eligible.slice(0, alert.hidden);
          notes.push(
            `Letta records counts only (${alert.hidden} of ${alert.total} messages hidden), no ids: it claims the first ${alert.hidden} messages before the alert, by position`,
          );
          if (eligible.length < alert.hidden) notes.push(`${alert.hidden - eligible.length} of the hidden messages are not in this file`);
        } else {
          claimed = turns.slice(track.segmentStart);
          notes.push('Letta system_alert without a hidden-message count: it claims the messages before it since the previous summary');
        }
        this.finishCheckpoint(state, track, {
          summaryId: message.id ?? `alert ${i}`,
          summary: alert.message,
          claimed,
          span: located.span,
          notes,
        });
      }
      return;
    }
    const opensLangChain = message.text.trimStart().startsWith(LANGCHAIN_OPENING);
    if (message.summarization || (message.role === 'user' && opensLangChain)) {
      // Only the messages before the summary decide what it claims: the ones kept verbatim reappear after it, and
      // lines after a checkpoint must not change it.
      for (const track of state.tracks) {
        const claimed = turns.slice(track.segmentStart);
        const notes = [
          `LangChain stores no pointer set: it claims the ${claimed.length} messages before the summary since the ${track.checkpoints.length === 0 ? 'start' : 'previous summary'}, including any it kept verbatim after it (those show only in later lines); trim_tokens_to_summarize (default 4000) may have cut what the summariser saw`,
        ];
        if (claimed.length === 0)
          notes.push(
            'the summarised messages were removed from the state (RemoveMessage) and are not in this file: nothing can be checked',
          );
        this.finishCheckpoint(state, track, {
          summaryId: message.id ?? `summary ${i}`,
          summary: message.text,
          claimed,
          span: located.span,
          notes,
        });
      }
      return;
    }
    if (message.role === 'system' && message.text.trimStart().startsWith(LANGMEM_OPENING)) {
      // With a running summary in the file, the summary injected into the prompt: not a turn (that track ignores it).
      const track = state.withoutRunning;
      const claimed = turns.slice(track.segmentStart);
      const notes = [
        `LangMem summary message without its running_summary state: it claims the ${claimed.length} messages before it since the ${track.checkpoints.length === 0 ? 'start' : 'previous summary'}`,
      ];
      this.finishCheckpoint(state, track, {
        summaryId: message.id ?? `summary ${i}`,
        summary: message.text,
        claimed,
        span: located.span,
        notes,
      });
      return;
    }
    let id: TurnId = message.id ?? i;
    if (used.has(String(id))) {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: message id ${String(id)} is used twice; this message is shown as ${i}.`,
      });
      id = i;
    }
    used.add(String(id));
    const turn: Turn = { id, role: message.role, text: message.text, span: located.span, label: message.kind };
    const answers = calls.answersFor(message.answers);
    if (answers !== undefined) turn.answers = answers;
    for (const call of message.calls) calls.add(call.id, id, call.text);
    turns.push(this.keepTurn(turn));
  }

  /** Running summary `k`'s checkpoint, from every turn read; its problems go to `problems`. */
  private runningSummary(running: Located, k: number, state: ReadState, problems: Problem[]): Checkpoint {
    const { turns: allTurns, jsonl } = state;
    const n = running.span.startLine;
    const value = running.value as JsonObject;
    const summary = typeof value.summary === 'string' ? value.summary : '';
    const ids = Array.isArray(value.summarized_message_ids)
      ? value.summarized_message_ids.filter((x): x is string => typeof x === 'string')
      : [];
    if (!Array.isArray(value.summarized_message_ids)) {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: running_summary has no summarized_message_ids list; it claims nothing.`,
      });
    }
    // In JSON Lines only the records up to the summary's own line are looked at; a single document is one record.
    const turns = jsonl ? allTurns.filter((t) => t.span.startLine <= running.span.endLine) : allTurns;
    const indexOf = new Map(turns.map((t, i) => [String(t.id), i]));
    const last = str(value.last_summarized_message_id);
    // Without a usable pointer it sits where its own record sits: after the messages that start before it.
    let turnsBefore = turns.filter((t) => t.span.startOffset < running.span.startOffset).length;
    if (last !== undefined && indexOf.has(last)) turnsBefore = indexOf.get(last)! + 1;
    else if (ids.some((id) => indexOf.has(id)))
      turnsBefore = Math.max(...ids.filter((id) => indexOf.has(id)).map((id) => indexOf.get(id)!)) + 1;
    const notes = [
      'LangMem adds every message it was given to summarized_message_ids, even when trim_messages cut the input to fit (max_summary_tokens, default 256)',
    ];
    const missing = ids.filter((id) => !indexOf.has(id));
    if (missing.length > 0) {
      notes.push(`${missing.length} of the ${ids.length} summarized_message_ids are not messages in this file`);
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: running_summary claims ${missing.length} message ids that are not in this file (${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', …' : ''}); they cannot be checked.`,
      });
    }
    if (last !== undefined && !indexOf.has(last)) notes.push(`last_summarized_message_id ${last} is not a message in this file`);
    return this.withBudget({
      summaryId: k === 0 ? 'running_summary' : `running_summary ${k + 1}`,
      summary,
      claimedIds: ids,
      span: running.span,
      turnsBefore,
      notes,
    });
  }
}

// Reader for OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): lines of
// {timestamp, type, payload}. Older rollouts (bare response items after a {id, timestamp, instructions} line, and
// {"record_type":"state"} lines) are read too.
//
// Turns: every `response_item` (message, agent_message, function_call, function_call_output, custom_tool_call and
// its output, reasoning, web_search_call, local_shell_call), numbered 0, 1, 2… in log order. `event_msg`
// user_message and agent_message repeat response items for the UI and are not turns (counting them would double
// every message); a `ghost_snapshot` item (a git snapshot for undo) is not a turn either. Tokens are left to be
// counted: a token_count reports a whole request, which spans several items. An output item `answers` the call item
// with the same `call_id` (function_call, custom_tool_call, local_shell_call).
//
// Checkpoints: each `compacted` line, named by its `window_id` (repeated ids get "@line"), else C1, C2…. Claimed =
// the items since the previous compaction that are not kept in its `replacement_history` (a kept message or
// agent_message is matched by content to the latest equal item not yet matched; ghost_snapshot and compaction items
// are not items of the log). When the line names its `previous_window_id`, "the previous compaction" is the one
// whose `window_id` that is; a `previous_window_id` equal to `first_window_id` names the thread's first window (the
// claim starts at the start of the file); one naming neither is a problem, and the claim falls back to the previous
// compaction in log order. Opaque (the summary cannot be read): replacement_history holds a
// {"type":"compaction","encrypted_content"} item (remote compaction), or `message` is empty and some kept item
// carries `encrypted_content`. An empty `message` with nothing encrypted is an empty summary (the local-compaction
// summary message in replacement_history, "Another language model started…", is used when there is one).
// An `event_msg` `context_compacted` belongs to the compaction just before it, or to a later one with the same
// timestamp; it is never a checkpoint itself, and one that belongs to none is a problem. recordedPrefixTokens =
// `info.last_token_usage.total_tokens` of the last token_count before the compaction whose request had input
// (input_tokens > 0); the zero-input token_count Codex writes around a compaction describes no request and is
// passed over.
//
// Read as pushed, a batch of records at a time (ReadState): every turn is whole once its record is read, and a
// compaction claims only turns read before it, so appended lines change nothing read before (but a context_compacted
// event's note on the compaction before it). A file read once from its start lets its records go once read, and
// hands each turn to ReaderContext.keepTurn as it is made (a large file's texts go to disk as they are read).

import { groupDigits } from '../core/displayText';
import type { Checkpoint, Problem, RawLine, ReaderContext, Role, TextKeeper, Transcript, Turn } from '../core/model';
import { DROP_RECORD, isObject, type JsonLinesBuffer, type JsonObject } from './jsonLines';
import { PushedRecords, READ_AHEAD_RECORDS } from './pushedRecords';
import { RebuildingReader } from './rebuildingReader';
import { lineSpan } from './sourceSpan';
import { valueText, textOf, toolCallText } from './textOf';
import { CallLinks, answeredIdsOf, callsOf, type ToolCall } from './toolLinks';

const ITEM_TYPES = new Set([
  'message',
  'agent_message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'web_search_call',
  'local_shell_call',
  'tool_search_call',
  'tool_search_output',
]);
const WRAPPER_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** Response items that are not turns and need no mention: a git snapshot Codex takes for undo. */
const SILENT_ITEM_TYPES = new Set(['ghost_snapshot']);
/** replacement_history items that hold the remote compaction's encrypted summary. */
const COMPACTION_ITEM_TYPES = new Set(['compaction', 'compaction_summary']);
/** The prefix Codex gives a local compaction's summary message (codex-rs templates/compact/summary_prefix.md). */
const SUMMARY_PREFIX = 'Another language model started to solve this problem';

export const OPAQUE_NOTE = 'summary is encrypted (remote compaction): coverage cannot be verified';

/** A compaction read so far, for window links and context_compacted events. */
interface CompactionMark {
  checkpoint: Checkpoint;
  /** Its checkpoint's index in ReadState.checkpoints. */
  index: number;
  /** ReadState.finishes when its checkpoint was last copied to change it: the copy is its own until the next finish. */
  copiedAt?: number;
  line: number;
  timestamp?: string;
  /** turns.length at the compaction: where the next window's items start. */
  turnsAt: number;
  windowNumber?: number;
  /** A context_compacted event was matched to it. */
  event: boolean;
}

interface TokenMark {
  line: number;
  total: number;
  window?: number;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function itemRole(item: JsonObject): Role {
  switch (item.type) {
    case 'message':
      return item.role === 'user' ? 'user' : item.role === 'assistant' ? 'assistant' : 'system';
    case 'agent_message':
      return 'user'; // another agent's message, handed to this one as input
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'tool_search_output':
      return 'tool';
    default:
      return 'assistant';
  }
}

function itemText(item: JsonObject): string {
  switch (item.type) {
    case 'message':
    case 'agent_message':
      return textOf(item.content);
    case 'function_call':
      return toolCallText(item.name, item.arguments);
    case 'custom_tool_call':
      return toolCallText(item.name, item.input);
    case 'local_shell_call':
      return toolCallText('shell', item.action);
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'tool_search_output':
      return typeof item.output === 'string' ? item.output : textOf(item.output);
    case 'reasoning':
      return Array.isArray(item.summary) ? textOf(item.summary) : '';
    case 'web_search_call': {
      const action = isObject(item.action) ? item.action : {};
      return `[web search] ${typeof action.query === 'string' ? action.query : JSON.stringify(action)}`;
    }
    default:
      return JSON.stringify(item);
  }
}

function itemLabel(item: JsonObject): string {
  if (item.type === 'message') return `${valueText(item.role ?? 'message')} message`;
  if (item.type === 'agent_message')
    return typeof item.author === 'string' && item.author !== '' ? `agent message from ${item.author}` : 'agent message';
  if (typeof item.name === 'string')
    return item.type === 'function_call' || item.type === 'custom_tool_call' ? item.name : `${item.name} output`;
  return valueText(item.type).replace(/_/g, ' ');
}

/** What makes two items "the same" when matching replacement_history against the log. */
function itemKey(item: JsonObject): string {
  if (item.type === 'message') return `message\u0000${valueText(item.role)}\u0000${textOf(item.content)}`;
  if (item.type === 'agent_message')
    return `agent_message\u0000${valueText(item.author)}\u0000${valueText(item.recipient)}\u0000${textOf(item.content)}`;
  const { type, ...rest } = item;
  return `${valueText(type)}\u0000${JSON.stringify(rest)}`;
}

/** The key an item is matched by, as its digest when the reader was given one (ReaderContext.digest). */
function matchKey(item: JsonObject, digest: ((text: string) => string) | undefined): string {
  const key = itemKey(item);
  return digest ? digest(key) : key;
}

/** A response item as build reads it: what its turn is made of, or only its type when it is not read. */
interface ReadItem {
  /** The item's `type` as recorded (any JSON value: build says what is wrong when it is no string, or not read). */
  itemType: unknown;
  turn?: {
    role: Role;
    text: string;
    label: string;
    key: string;
    answered: readonly string[];
    calls: readonly ToolCall[];
  };
}

/** An item read into what build needs of it (for the types build reads; any other keeps its type only). */
function readItem(item: JsonObject, digest: ((text: string) => string) | undefined): ReadItem {
  const itemType = item.type;
  if (typeof itemType !== 'string' || !ITEM_TYPES.has(itemType)) return { itemType };
  const turn = {
    role: itemRole(item),
    text: itemText(item),
    label: itemLabel(item),
    key: matchKey(item, digest),
    answered: orNone(answeredIdsOf(item)),
    calls: orNone(callsOf(item)),
  };
  return { itemType, turn };
}

/** An empty list, shared: most items answer no call and make none (an array each was some 30 bytes an item). */
const NONE: readonly never[] = Object.freeze([]);

function orNone<T>(list: T[]): readonly T[] {
  return list.length === 0 ? NONE : list;
}

/** A record of a response item (or a bare item) as codexFields keeps it: the item read. */
class ItemRecord {
  constructor(readonly read: ReadItem) {}
}

/**
 * What build reads of a record, made as it is parsed; the rest is left out, and no record is kept of one build
 * passes over in silence (DROP_RECORD). Most of a rollout's bytes are records build reads a field or two of, or
 * none: token_count events (read for their last request's totals), context_compacted events (their timestamp), the
 * other events, turn_context and session_meta (passed over). In a real rollout they were three quarters of the bytes,
 * and kept whole they held about four times the file's size in memory. A response item is kept as what its turn is
 * made of (readItem): its text, not its parsed fields, and the key it is matched by against replacement_history as
 * a digest when `digest` is given. Compactions are kept whole.
 */
function codexFields(value: unknown, digest?: (text: string) => string): unknown {
  if (!isObject(value)) return value;
  const type = value.type;
  if (type === 'compacted') return value;
  if (typeof type === 'string' && ITEM_TYPES.has(type)) return new ItemRecord(readItem(value, digest)); // a bare item
  // A wrapper whose payload is not an object is skipped with a warning: null stands for any such payload.
  const payload = isObject(value.payload) ? value.payload : null;
  if (type === 'response_item') return payload === null ? { type, payload } : new ItemRecord(readItem(payload, digest));
  if (type === 'event_msg') {
    if (payload === null) return { type, payload };
    if (payload.type === 'token_count') return { type, payload: { type: payload.type, info: tokenInfo(payload.info) } };
    if (payload.type === 'context_compacted') return { type, timestamp: value.timestamp, payload: { type: payload.type } };
    return DROP_RECORD; // an event for the UI, passed over
  }
  if (typeof type === 'string' && WRAPPER_TYPES.has(type)) return payload === null ? { type, payload } : DROP_RECORD; // passed over
  // Older rollouts' state records and session header are passed over; any other record is named in a problem.
  if (value.record_type !== undefined || (typeof type !== 'string' && 'instructions' in value)) return DROP_RECORD;
  return { type };
}

/** What tokenMark reads of a token_count's `info`. */
function tokenInfo(info: unknown): unknown {
  if (!isObject(info)) return info;
  const last = isObject(info.last_token_usage)
    ? { total_tokens: info.last_token_usage.total_tokens, input_tokens: info.last_token_usage.input_tokens }
    : info.last_token_usage;
  return { last_token_usage: last, model_context_window: info.model_context_window };
}

/** A context_compacted event read before any compaction it could belong to. */
interface WaitingEvent {
  line: number;
  matched: boolean;
}

/**
 * What readRecords has read so far, kept between finishes so that lines appended are read in proportion to
 * themselves. Every record is read once, in log order: a turn is made whole from its record (its `answers` from the
 * calls before it), and a compaction claims turns read before it, so lines appended later change neither. Only a
 * context_compacted event adds a note to a compaction before it (a copy, when a finish returned that one).
 */
class ReadState {
  /** How many of the line buffer's records were read. */
  read = 0;
  readonly problems: Problem[] = [];
  readonly turns: Turn[] = [];
  /** Each turn's key for matching replacement_history (matchKey), by turn index. */
  readonly keys: string[] = [];
  readonly checkpoints: Checkpoint[] = [];
  /** checkpoints[0, published) were returned by a finish: one is copied before it changes, never changed in place. */
  published = 0;
  /** How many finishes returned what was read (a copy made since the last one may change in place). */
  finishes = 0;
  readonly unknown = new Set<string>();
  lastTokens: TokenMark | undefined;
  readonly calls: CallLinks;
  readonly compactions: CompactionMark[] = [];
  /** window_id → the latest compaction that opened it. */
  readonly windows = new Map<string, CompactionMark>();
  readonly usedIds = new Set<string>();
  /**
   * context_compacted events with no compaction before them, in order, and by timestamp (a later compaction with the
   * same timestamp takes the first of them).
   */
  readonly waitingEvents: WaitingEvent[] = [];
  readonly waitingByTime = new Map<string, WaitingEvent[]>();

  /** `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  constructor(keeper?: TextKeeper) {
    this.calls = new CallLinks(keeper);
  }

  /** Adds a note to a compaction's checkpoint, on a copy of it when a finish returned it. */
  note(mark: CompactionMark, text: string): void {
    if (mark.index < this.published && mark.copiedAt !== this.finishes) {
      mark.checkpoint = { ...mark.checkpoint, notes: [...(mark.checkpoint.notes ?? [])] };
      this.checkpoints[mark.index] = mark.checkpoint;
      mark.copiedAt = this.finishes;
    }
    mark.checkpoint.notes?.push(text);
  }
}

export class CodexReader extends RebuildingReader {
  readonly format = 'codex' as const;
  /** The records, read into the state as they come, a batch at a time (pushedRecords.ts). */
  private readonly records: PushedRecords;
  private readonly lines: JsonLinesBuffer;
  private state = new ReadState(this.context.textKeeper);

  /**
   * `keepWhole`: every record is kept whole, and read as it is (tests compare it with codexFields).
   * `readAheadRecords`: how many pushed records wait before push() reads them (tests vary it).
   */
  constructor(context?: ReaderContext, keepWhole = false, readAheadRecords = READ_AHEAD_RECORDS) {
    super(context);
    const digest = this.context.digest;
    const keep = keepWhole ? undefined : (value: unknown) => codexFields(value, digest);
    this.records = new PushedRecords({ dropText: true, keep }, readAheadRecords);
    this.lines = this.records.lines;
  }

  push(line: RawLine): void {
    if (this.records.push(line)) this.state = new ReadState(this.context.textKeeper);
    if (this.records.due(this.state.read)) this.readRecords(this.state);
  }

  protected stateKey(): string {
    return this.records.key();
  }

  /**
   * Every checkpoint read (TranscriptReader.settledCheckpoints): a compaction claims turns read before it, and no
   * turn changes once made. A later context_compacted event may add a note to it, which no verdict reads. The
   * records pushed so far are read first, so a compaction counts from its line.
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
    for (const e of state.waitingEvents) {
      if (e.matched) continue;
      problems.push({
        line: e.line,
        severity: 'info',
        message: `line ${e.line}: a context_compacted event that belongs to no compaction (no compacted line just before it, nor a later one with its timestamp); it is not a checkpoint.`,
      });
    }
    problems.sort((a, b) => a.line - b.line);
    state.published = state.checkpoints.length;
    state.finishes++;
    return {
      format: this.format,
      turns: state.turns.slice(),
      checkpoints: state.checkpoints.slice(),
      problems,
      lineCount: this.lines.lineCount,
    };
  }

  /**
   * Reads the records pushed since the last read into `state`. A reader whose lines are pushed once each
   * (ReaderContext.linesOnce, which readOnce and keepTurn imply: no record is read again) then lets the records go,
   * and hands each turn to the context's keepTurn as it is made: no turn changes once made.
   */
  private readRecords(state: ReadState): void {
    const records = this.lines.records;
    const { problems, turns, keys, unknown, calls, waitingEvents, waitingByTime, compactions } = state;
    const keep = this.context.keepTurn;
    for (let r = state.read; r < records.length; r++) {
      const { line, value } = records[r];
      const n = line.line;
      if (!isObject(value)) {
        problems.push({
          line: n,
          severity: 'error',
          message: `line ${n} is not a JSON object, so it is not a Codex rollout record; it was skipped.`,
        });
        continue;
      }
      const type = typeof value.type === 'string' ? value.type : undefined;
      let item: ReadItem | undefined;
      if (value instanceof ItemRecord) {
        item = value.read; // read as it was parsed (codexFields)
      } else if (type !== undefined && WRAPPER_TYPES.has(type)) {
        const payload = value.payload;
        if (!isObject(payload)) {
          problems.push({
            line: n,
            severity: 'warning',
            message: `line ${n} is a ${type} record without a "payload" object; it was skipped.`,
          });
          continue;
        }
        if (type === 'response_item') item = readItem(payload, this.context.digest);
        else if (type === 'event_msg') {
          if (payload.type === 'token_count') state.lastTokens = this.tokenMark(payload, n) ?? state.lastTokens;
          else if (payload.type === 'context_compacted') {
            const previous = compactions[compactions.length - 1];
            if (previous !== undefined && !previous.event) {
              previous.event = true;
              state.note(previous, `its context_compacted event is at line ${n}`);
            } else {
              const waiting = { line: n, matched: false };
              waitingEvents.push(waiting);
              const ts = nonEmpty(value.timestamp);
              if (ts !== undefined) {
                const sameTime = waitingByTime.get(ts);
                if (sameTime === undefined) waitingByTime.set(ts, [waiting]);
                else sameTime.push(waiting);
              }
            }
          }
          continue;
        } else if (type === 'compacted') {
          const mark = this.checkpointOf(payload, line, nonEmpty(value.timestamp), state);
          // An event written before its compaction (same timestamp) belongs to it.
          const sameTime = mark.timestamp !== undefined ? waitingByTime.get(mark.timestamp) : undefined;
          const waiting = sameTime?.shift();
          if (waiting !== undefined) {
            waiting.matched = true;
            mark.event = true;
            state.note(mark, `its context_compacted event is at line ${waiting.line} (written before it, same timestamp)`);
          }
          state.lastTokens = undefined;
          continue;
        } else continue; // session_meta, turn_context
      } else if (type !== undefined && ITEM_TYPES.has(type)) {
        item = readItem(value, this.context.digest); // older rollouts: bare response items
      } else if (value.record_type !== undefined || (type === undefined && 'instructions' in value)) {
        continue; // older rollouts: state records and the session header
      } else {
        const name = type ?? '(no type)';
        if (!unknown.has(name)) {
          unknown.add(name);
          problems.push({
            line: n,
            severity: 'info',
            message: `line ${n} has record type ${name}, which Compaction Lens does not read; records of this type were skipped.`,
          });
        }
        continue;
      }
      const itemType = item.itemType;
      if (typeof itemType !== 'string') {
        problems.push({ line: n, severity: 'warning', message: `line ${n} is a response item without a "type"; it was skipped.` });
        continue;
      }
      if (SILENT_ITEM_TYPES.has(itemType)) continue;
      if (item.turn === undefined) {
        const name = `response_item/${itemType}`;
        if (!unknown.has(name)) {
          unknown.add(name);
          problems.push({
            line: n,
            severity: 'info',
            message: `line ${n} is a response item of type ${itemType}, which Compaction Lens does not read; items of this type were skipped.`,
          });
        }
        continue;
      }
      const read = item.turn;
      keys.push(read.key);
      const turn: Turn = { id: turns.length, role: read.role, text: read.text, span: lineSpan(line), label: read.label };
      const answers = calls.answersFor(read.answered);
      if (answers !== undefined) turn.answers = answers;
      for (const call of read.calls) calls.add(call.id, turn.id, call.text);
      turns.push(keep?.(turn) ?? turn);
    }
    state.read = this.records.letGo(this.context) ? 0 : records.length;
  }

  private tokenMark(payload: JsonObject, line: number): TokenMark | undefined {
    const info = isObject(payload.info) ? payload.info : undefined;
    const last = info && isObject(info.last_token_usage) ? info.last_token_usage : undefined;
    if (!last || typeof last.total_tokens !== 'number' || !(typeof last.input_tokens === 'number' && last.input_tokens > 0))
      return undefined;
    const window = typeof info!.model_context_window === 'number' ? info!.model_context_window : undefined;
    return { line, total: last.total_tokens, window };
  }

  private checkpointOf(payload: JsonObject, line: RawLine, timestamp: string | undefined, state: ReadState): CompactionMark {
    const { turns, keys, compactions, windows, usedIds, problems, checkpoints } = state;
    const n = line.line;
    const k = compactions.length;
    const notes: string[] = [];

    // Name and window links.
    const windowId = nonEmpty(payload.window_id);
    const previousWindowId = nonEmpty(payload.previous_window_id);
    const firstWindowId = nonEmpty(payload.first_window_id);
    const windowNumber =
      typeof payload.window_number === 'number' && Number.isFinite(payload.window_number) ? payload.window_number : undefined;
    let summaryId = windowId ?? `C${k + 1}`;
    if (usedIds.has(summaryId)) {
      const earlier = windowId !== undefined ? windows.get(windowId) : undefined;
      if (earlier !== undefined) {
        problems.push({
          line: n,
          severity: 'info',
          message: `line ${n}: window_id ${windowId} was already used by the compaction at line ${earlier.line}; this one is shown as ${windowId}@${n}.`,
        });
      }
      summaryId = `${summaryId}@${n}`;
    }
    usedIds.add(summaryId);

    if (windowNumber !== undefined) notes.push(`window_number ${windowNumber}${windowId !== undefined ? `, window_id ${windowId}` : ''}`);
    const previousInLog = compactions[k - 1];
    let previous: CompactionMark | undefined = previousInLog;
    let fromStart = false;
    if (previousWindowId !== undefined) {
      const named = windows.get(previousWindowId);
      if (named !== undefined) {
        previous = named;
        notes.push(
          `previous window ${previousWindowId}: opened by the compaction at line ${named.line}; items since then are this compaction's`,
        );
        if (windowNumber !== undefined && named.windowNumber !== undefined && windowNumber !== named.windowNumber + 1) {
          notes.push(`window_number ${windowNumber} does not follow its previous window's ${named.windowNumber}`);
        }
      } else if (previousWindowId === firstWindowId) {
        previous = undefined;
        fromStart = true;
        notes.push(`previous window ${previousWindowId} is the thread's first window: items since the start are this compaction's`);
      } else {
        const fallback =
          previousInLog !== undefined ? `the compaction before it in the file (line ${previousInLog.line})` : 'the start of the file';
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: compaction ${summaryId} names previous_window_id ${previousWindowId}, which no earlier compaction in this file opened; its claimed items are counted from ${fallback}, which may be wrong if the file is incomplete or was rolled back.`,
        });
        notes.push(
          `previous_window_id ${previousWindowId} names no earlier compaction in this file: claimed items counted from ${fallback}`,
        );
      }
    }
    const segmentStart = fromStart || previous === undefined ? 0 : previous.turnsAt;
    const since = segmentStart === 0 ? 'start' : 'previous compaction';

    // The summary: the message, or an encrypted item of replacement_history.
    let message = typeof payload.message === 'string' ? payload.message : '';
    const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : undefined;
    let opaque = false;
    let encryptedItem: string | undefined;
    let summaryFromHistory = false;
    if (history !== undefined) {
      for (let i = 0; i < history.length; i++) {
        const h = history[i];
        if (!isObject(h)) continue;
        const type = typeof h.type === 'string' ? h.type : undefined;
        if (type !== undefined && COMPACTION_ITEM_TYPES.has(type) && h.encrypted_content !== undefined) opaque = true;
        else if (encryptedItem === undefined && typeof h.encrypted_content === 'string' && h.encrypted_content !== '')
          encryptedItem = `${i + 1} (${type ?? 'with no type'})`;
      }
      if (!opaque && message.trim() === '') {
        for (const h of history) {
          if (isObject(h) && h.type === 'message' && h.role === 'user') {
            const text = textOf(h.content);
            if (text.trimStart().startsWith(SUMMARY_PREFIX)) {
              message = text;
              summaryFromHistory = true;
            }
          }
        }
        if (summaryFromHistory)
          notes.push('payload.message is empty: the summary is the local-compaction summary message kept in replacement_history');
        else if (encryptedItem !== undefined) {
          opaque = true;
          notes.push(
            `payload.message is empty and replacement_history item ${encryptedItem} carries encrypted_content: the summary is presumably in it`,
          );
        }
      }
    }
    if (!opaque && message.trim() === '' && !summaryFromHistory) {
      notes.push('payload.message is empty and replacement_history holds no encrypted item: this compaction recorded no summary');
    }

    // Claimed: the items of this window not kept verbatim.
    const segment = turns.length - segmentStart;
    const kept = new Set<number>();
    if (history !== undefined) {
      let strays = 0;
      // Each key's items of this window, in log order: a kept item takes the latest one not yet taken.
      const byKey = new Map<string, number[]>();
      for (let i = segmentStart; i < turns.length; i++) {
        const list = byKey.get(keys[i]);
        if (list === undefined) byKey.set(keys[i], [i]);
        else list.push(i);
      }
      for (const h of history) {
        if (!isObject(h) || typeof h.type !== 'string' || !ITEM_TYPES.has(h.type)) continue; // compaction, ghost_snapshot…
        if (summaryFromHistory && h.type === 'message' && textOf(h.content) === message) continue;
        const found = byKey.get(matchKey(h, this.context.digest))?.pop();
        if (found === undefined) strays++;
        else kept.add(found);
      }
      notes.push(
        `${kept.size} of the ${segment} items since the ${since} are kept verbatim in replacement_history (matched by content) and are not claimed`,
      );
      if (strays > 0)
        notes.push(
          `${strays} replacement_history item${strays === 1 ? '' : 's'} match${strays === 1 ? 'es' : ''} no earlier item (context re-injected after the compaction)`,
        );
    } else {
      notes.push(`no replacement_history recorded: every item since the ${since} is claimed`);
    }
    const claimedIds = [];
    for (let i = segmentStart; i < turns.length; i++) if (!kept.has(i)) claimedIds.push(turns[i].id);

    if (opaque) {
      notes.unshift(OPAQUE_NOTE);
      problems.push({
        line: n,
        severity: 'info',
        message: `line ${n}: compaction ${summaryId} was done remotely; its summary is encrypted, so whether it covers the ${claimedIds.length} claimed items cannot be verified.`,
      });
    }
    const checkpoint: Checkpoint = {
      summaryId,
      summary: opaque ? (typeof payload.message === 'string' ? payload.message : '') : message,
      claimedIds,
      span: lineSpan(line),
      turnsBefore: turns.length,
      notes,
    };
    if (opaque) checkpoint.opaque = true;
    const tokens = state.lastTokens;
    if (tokens !== undefined) {
      checkpoint.recordedPrefixTokens = tokens.total;
      const window = tokens.window !== undefined ? `, model_context_window ${groupDigits(tokens.window)}` : '';
      notes.push(
        `recorded prefix: last_token_usage.total_tokens ${groupDigits(tokens.total)} of the token_count at line ${tokens.line}${window}`,
      );
    }
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    const mark: CompactionMark = {
      checkpoint,
      index: checkpoints.length,
      line: n,
      timestamp,
      turnsAt: turns.length,
      windowNumber,
      event: false,
    };
    checkpoints.push(checkpoint);
    compactions.push(mark);
    if (windowId !== undefined) windows.set(windowId, mark);
    return mark;
  }
}

// Reader for OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): lines of
// {timestamp, type, payload}. Older rollouts (bare response items after a {id, timestamp, instructions} line, and
// {"record_type":"state"} lines) are read too.
//
// Turns: every `response_item` (message, function_call, function_call_output, custom_tool_call and its output,
// reasoning, web_search_call, local_shell_call), numbered 0, 1, 2… in log order. `event_msg` user_message and
// agent_message repeat response items for the UI and are not turns (counting them would double every message).
// Tokens are left to be counted: a token_count reports a whole request, which spans several items. An output item
// `answers` the call item with the same `call_id` (function_call, custom_tool_call, local_shell_call).
//
// Checkpoints: each `compacted` line. Claimed = the items since the previous compaction that are not kept in its
// `replacement_history` (a kept item is matched by content to the latest equal item not yet matched). Remote
// compaction (replacement_history holding a {"type":"compaction","encrypted_content"} item) is opaque: the summary
// cannot be read. recordedPrefixTokens = `info.last_token_usage.total_tokens` of the last token_count before the
// compaction whose request had input (input_tokens > 0); the zero-input token_count Codex writes around a
// compaction describes no request and is passed over.

import type { Checkpoint, Problem, RawLine, Role, Transcript, Turn } from '../core/model';
import { JsonLinesBuffer, isObject, type JsonObject } from './jsonLines';
import { RebuildingReader } from './rebuildingReader';
import { lineSpan } from './sourceSpan';
import { formatCount, textOf, toolCallText } from './textOf';
import { CallLinks, answeredIdsOf, callsOf } from './toolLinks';

const ITEM_TYPES = new Set([
  'message',
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

export const OPAQUE_NOTE = 'summary is encrypted (remote compaction): coverage cannot be verified';

interface TokenMark {
  line: number;
  total: number;
  window?: number;
}

function itemRole(item: JsonObject): Role {
  switch (item.type) {
    case 'message':
      return item.role === 'user' ? 'user' : item.role === 'assistant' ? 'assistant' : 'system';
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
  if (item.type === 'message') return `${String(item.role ?? 'message')} message`;
  if (typeof item.name === 'string') return item.type === 'function_call' || item.type === 'custom_tool_call' ? item.name : `${item.name} output`;
  return String(item.type).replace(/_/g, ' ');
}

/** What makes two items "the same" when matching replacement_history against the log. */
function itemKey(item: JsonObject): string {
  if (item.type === 'message') return `message\u0000${String(item.role)}\u0000${textOf(item.content)}`;
  const { type, ...rest } = item;
  return `${String(type)}\u0000${JSON.stringify(rest)}`;
}

export class CodexReader extends RebuildingReader {
  readonly format = 'codex' as const;
  private readonly lines = new JsonLinesBuffer();

  push(line: RawLine): void {
    this.lines.push(line);
  }

  protected stateKey(): string {
    return `${this.lines.lineCount}:${this.lines.records.length}:${this.lines.problems.length}`;
  }

  protected build(): Transcript {
    const problems: Problem[] = [...this.lines.problems];
    const turns: Turn[] = [];
    const keys: string[] = [];
    const checkpoints: Checkpoint[] = [];
    const unknown = new Set<string>();
    let segmentStart = 0;
    let lastTokens: TokenMark | undefined;
    const calls = new CallLinks();

    for (const { line, value } of this.lines.records) {
      const n = line.line;
      if (!isObject(value)) {
        problems.push({ line: n, severity: 'error', message: `line ${n} is not a JSON object, so it is not a Codex rollout record; it was skipped.` });
        continue;
      }
      const type = typeof value.type === 'string' ? value.type : undefined;
      let item: JsonObject | undefined;
      if (type !== undefined && WRAPPER_TYPES.has(type)) {
        const payload = value.payload;
        if (!isObject(payload)) {
          problems.push({ line: n, severity: 'warning', message: `line ${n} is a ${type} record without a "payload" object; it was skipped.` });
          continue;
        }
        if (type === 'response_item') item = payload;
        else if (type === 'event_msg') {
          if (payload.type === 'token_count') lastTokens = this.tokenMark(payload, n) ?? lastTokens;
          continue;
        } else if (type === 'compacted') {
          checkpoints.push(this.checkpointOf(payload, line, checkpoints.length, turns, keys, segmentStart, lastTokens, problems));
          segmentStart = turns.length;
          lastTokens = undefined;
          continue;
        } else continue; // session_meta, turn_context
      } else if (type !== undefined && ITEM_TYPES.has(type)) {
        item = value; // older rollouts: bare response items
      } else if (value.record_type !== undefined || (type === undefined && 'instructions' in value)) {
        continue; // older rollouts: state records and the session header
      } else {
        const name = type ?? '(no type)';
        if (!unknown.has(name)) {
          unknown.add(name);
          problems.push({ line: n, severity: 'info', message: `line ${n} has record type ${name}, which Compaction Lens does not read; records of this type were skipped.` });
        }
        continue;
      }
      if (typeof item.type !== 'string') {
        problems.push({ line: n, severity: 'warning', message: `line ${n} is a response item without a "type"; it was skipped.` });
        continue;
      }
      if (!ITEM_TYPES.has(item.type)) {
        const name = `response_item/${item.type}`;
        if (!unknown.has(name)) {
          unknown.add(name);
          problems.push({ line: n, severity: 'info', message: `line ${n} is a response item of type ${item.type}, which Compaction Lens does not read; items of this type were skipped.` });
        }
        continue;
      }
      keys.push(itemKey(item));
      const turn: Turn = { id: turns.length, role: itemRole(item), text: itemText(item), span: lineSpan(line), label: itemLabel(item) };
      const answers = calls.answersFor(answeredIdsOf(item));
      if (answers !== undefined) turn.answers = answers;
      for (const call of callsOf(item)) calls.add(call.id, turn.id, call.text);
      turns.push(turn);
    }
    problems.sort((a, b) => a.line - b.line);
    return { format: this.format, turns, checkpoints, problems, lineCount: this.lines.lineCount };
  }

  private tokenMark(payload: JsonObject, line: number): TokenMark | undefined {
    const info = isObject(payload.info) ? payload.info : undefined;
    const last = info && isObject(info.last_token_usage) ? info.last_token_usage : undefined;
    if (!last || typeof last.total_tokens !== 'number' || !(typeof last.input_tokens === 'number' && last.input_tokens > 0)) return undefined;
    const window = typeof info!.model_context_window === 'number' ? info!.model_context_window : undefined;
    return { line, total: last.total_tokens, window };
  }

  private checkpointOf(
    payload: JsonObject,
    line: RawLine,
    k: number,
    turns: Turn[],
    keys: string[],
    segmentStart: number,
    tokens: TokenMark | undefined,
    problems: Problem[],
  ): Checkpoint {
    const n = line.line;
    const summaryId = typeof payload.window_id === 'string' && payload.window_id !== '' ? payload.window_id : `C${k + 1}`;
    const message = typeof payload.message === 'string' ? payload.message : '';
    const notes: string[] = [];
    const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : undefined;
    const opaque = history?.some((h) => isObject(h) && h.type === 'compaction' && h.encrypted_content !== undefined) ?? false;

    const segment = turns.length - segmentStart;
    const kept = new Set<number>();
    if (history !== undefined) {
      let strays = 0;
      for (const h of history) {
        if (!isObject(h) || h.type === 'compaction') continue;
        const key = itemKey(h);
        let found = -1;
        for (let i = turns.length - 1; i >= segmentStart; i--) {
          if (!kept.has(i) && keys[i] === key) {
            found = i;
            break;
          }
        }
        if (found === -1) strays++;
        else kept.add(found);
      }
      notes.push(`${kept.size} of the ${segment} items since the ${k === 0 ? 'start' : 'previous compaction'} are kept verbatim in replacement_history (matched by content) and are not claimed`);
      if (strays > 0) notes.push(`${strays} replacement_history item${strays === 1 ? '' : 's'} match${strays === 1 ? 'es' : ''} no earlier item (context re-injected after the compaction)`);
    } else {
      notes.push(`no replacement_history recorded: every item since the ${k === 0 ? 'start' : 'previous compaction'} is claimed`);
    }
    const claimedIds = [];
    for (let i = segmentStart; i < turns.length; i++) if (!kept.has(i)) claimedIds.push(turns[i].id);

    if (opaque) {
      notes.unshift(OPAQUE_NOTE);
      problems.push({ line: n, severity: 'info', message: `line ${n}: compaction ${summaryId} was done remotely; its summary is encrypted, so whether it covers the ${claimedIds.length} claimed items cannot be verified.` });
    }
    const checkpoint: Checkpoint = { summaryId, summary: message, claimedIds, span: lineSpan(line), turnsBefore: turns.length, notes };
    if (opaque) checkpoint.opaque = true;
    if (tokens !== undefined) {
      checkpoint.recordedPrefixTokens = tokens.total;
      const window = tokens.window !== undefined ? `, model_context_window ${formatCount(tokens.window)}` : '';
      notes.push(`recorded prefix: last_token_usage.total_tokens ${formatCount(tokens.total)} of the token_count at line ${tokens.line}${window}`);
    }
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    return checkpoint;
  }
}

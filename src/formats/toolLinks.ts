// Links tool results to the calls they answer, by the id the transcript gives both: a reader records each call as
// it reads the turn that makes it (CallLinks.add), then asks what a result turn answers (CallLinks.answersFor).
// Also finds the call and result ids in the record shapes several formats share: OpenAI chat `tool_calls` /
// `tool_call_id`, LangChain and Letta tool calls, Anthropic `tool_use` / `tool_result` blocks, and OpenAI Responses
// (and Codex) `function_call` / `custom_tool_call` / `local_shell_call` items and their outputs, by `call_id`.

import type { TextKeeper, Turn, TurnId } from '../core/model';
import { isObject, type JsonObject } from './jsonLines';
import { toolCallEntryText, toolCallText } from './textOf';

/** A call as a result names it, and the call rendered as its turn's text renders it. */
export interface ToolCall {
  id: string;
  text: string;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A call as CallLinks keeps it: its turn, and its text, or the number a TextKeeper gave its text. */
interface KnownCall {
  turnId: TurnId;
  text: string | number;
}

/**
 * The calls of the turns read so far, by call id. With a TextKeeper (ReaderContext.textKeeper: a large file read
 * once), each call's text is kept there and read back when a result answers it: a session's calls' texts are a
 * quarter of its size or more, and every one of them was held until its read ended.
 */
export class CallLinks {
  private readonly calls = new Map<string, KnownCall>();

  constructor(private readonly keeper?: TextKeeper) {}

  /** Records a call made by turn `turnId`; a later call with the same id replaces it. */
  add(callId: string, turnId: TurnId, text: string): void {
    this.calls.set(callId, { turnId, text: this.keeper?.keepText(text) ?? text });
  }

  /**
   * What a result answering the calls `callIds` answers: the turn that made the first of them that is known, and
   * the texts of those of them that turn made, one a line. Undefined when none is known (not in the file).
   */
  answersFor(callIds: readonly string[]): Turn['answers'] {
    const known = [...new Set(callIds)].map((id) => this.calls.get(id)).filter((call): call is KnownCall => call !== undefined);
    if (known.length === 0) return undefined;
    const turnId = known[0].turnId;
    const texts = known.filter((call) => call.turnId === turnId).map((call) => this.textOf(call));
    return { turnId, callText: texts.join('\n') };
  }

  private textOf(call: KnownCall): string {
    return typeof call.text === 'string' ? call.text : this.keeper!.keptText(call.text);
  }
}

/**
 * The calls a record makes, each with its id: `tool_calls` entries (OpenAI chat, LangChain, Letta), a Letta
 * `tool_call`, `tool_use` blocks in `content` (Anthropic), or the record itself when it is a Responses call item.
 */
export function callsOf(record: JsonObject): ToolCall[] {
  const calls: ToolCall[] = [];
  const callId = str(record.call_id);
  if (callId !== undefined) {
    if (record.type === 'function_call') calls.push({ id: callId, text: toolCallText(record.name, record.arguments) });
    else if (record.type === 'custom_tool_call') calls.push({ id: callId, text: toolCallText(record.name, record.input) });
    else if (record.type === 'local_shell_call') calls.push({ id: callId, text: toolCallText('shell', record.action) });
  }
  if (Array.isArray(record.tool_calls)) {
    for (const call of record.tool_calls) {
      const id = isObject(call) ? str(call.id) : undefined;
      if (id !== undefined) calls.push({ id, text: toolCallEntryText(call) });
    }
  }
  if (isObject(record.tool_call)) {
    const id = str(record.tool_call.tool_call_id) ?? str(record.tool_call.id);
    if (id !== undefined) calls.push({ id, text: toolCallText(record.tool_call.name, record.tool_call.arguments) });
  }
  if (Array.isArray(record.content)) {
    for (const block of record.content) {
      if (isObject(block) && block.type === 'tool_use' && str(block.id) !== undefined) {
        calls.push({ id: block.id as string, text: toolCallText(block.name, block.input) });
      }
    }
  }
  return calls;
}

/**
 * The ids of the calls a record answers: its `tool_call_id` (OpenAI chat, LangChain, Letta), the `tool_call_id` of
 * its Letta `tool_returns`, the `tool_use_id` of `tool_result` blocks in `content` (Anthropic), or its `call_id`
 * when it is a Responses output item.
 */
export function answeredIdsOf(record: JsonObject): string[] {
  const ids: string[] = [];
  const add = (value: unknown) => {
    const id = str(value);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  };
  if (record.type === 'function_call_output' || record.type === 'custom_tool_call_output') add(record.call_id);
  add(record.tool_call_id);
  if (Array.isArray(record.tool_returns)) for (const r of record.tool_returns) if (isObject(r)) add(r.tool_call_id);
  if (Array.isArray(record.content)) {
    for (const block of record.content) if (isObject(block) && block.type === 'tool_result') add(block.tool_use_id);
  }
  return ids;
}

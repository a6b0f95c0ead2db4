// Reader for Letta agent files (`.af`) and the same JSON from Letta's agent export API: one JSON document
// `{agents: [...], groups, blocks, tools, ...}` (pretty-printed or on one line), each agent holding `messages`
// ({type: "message", role, content: [{type: "text", text}], id: "message-N", tool_calls, tool_call_id, tool_returns})
// and `in_context_message_ids`. A bare agent object (`{messages, in_context_message_ids, ...}`) is read the same way.
//
// Turns: every message of every agent, in file order (agent 0's messages, then agent 1's, …), read by the LangChain
// reader's Letta message normaliser (langchain.ts `normalize`). Ids: the message id as the file spells it — Letta's
// export numbers messages across the whole file ("message-0", "message-1", …), so they are unique across agents. A
// message with no id, or with an id already used earlier in the file (by this agent or another), is shown as
// "agent A message M" (A its agent's index, M its position in that agent's messages), and a problem says so. Tool
// results answer their calls within their own agent (`tool_call_id`, `tool_returns[].tool_call_id`).
//
// Checkpoints: a message whose whole text is a Letta `system_alert` (a JSON string, or the object itself as the
// content) is a compaction; its summary is the alert's `message`. A system_alert quoted inside other text (a
// `<system-reminder>` that pastes an old transcript) is not. Letta keeps only the messages still in context: the
// messages a summary replaced were evicted and are not in the file, and Letta records no ids for them. So a
// checkpoint claims no turn here and its coverage is unverifiable (Checkpoint.unverifiable: judged fail-closed, the
// same mechanism as a Claude Code compaction copied from a parent session); its summary is still shown and checked
// for truncation. Its `compaction_stats` (message counts, context tokens before and after) become notes, and
// `context_tokens_before` the recorded prefix size.
//
// In context: `in_context_message_ids` says which messages are in the agent's context. Turns out of context are
// labelled so; each checkpoint's notes say how much of its agent's file is in context, and an info problem at the
// agent says how many messages are out of context, or which in-context ids are missing from the file.

import type { Checkpoint, Problem, RawLine, SourceSpan, Transcript, Turn, TurnId } from '../core/model';
import { isObject, type JsonObject } from './jsonLines';
import { DocumentLines } from './jsonSpans';
import { lettaAlert, lettaAlertObject, normalize, type LettaAlert } from './langchain';
import { RebuildingReader } from './rebuildingReader';
import { countOf, groupDigits } from '../core/displayText';
import { CallLinks } from './toolLinks';

interface Agent {
  value: JsonObject;
  messages: unknown[];
  index: number;
  span: SourceSpan;
  name: string;
}

type SpanOf = (node: unknown) => SourceSpan;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A system_alert given as an object: the content itself, its only block, or a text block whose text it is. */
function plainAlertOf(message: JsonObject): LettaAlert | undefined {
  const content = message.content ?? message.text;
  const only = Array.isArray(content) ? (content.length === 1 ? content[0] : undefined) : content;
  return lettaAlertObject(only) ?? (isObject(only) ? lettaAlertObject(only.text) : undefined);
}

/** The notes a system_alert's compaction_stats give, and the context size it records before compaction. */
function statsOf(alert: LettaAlert): { notes: string[]; before?: number } {
  const stats = isObject(alert.alert.compaction_stats) ? alert.alert.compaction_stats : undefined;
  if (stats === undefined) return { notes: [] };
  const parts: string[] = [];
  const mBefore = num(stats.messages_count_before);
  const mAfter = num(stats.messages_count_after);
  const tBefore = num(stats.context_tokens_before);
  const tAfter = num(stats.context_tokens_after);
  const window = num(stats.context_window);
  if (mBefore !== undefined && mAfter !== undefined) parts.push(`messages ${groupDigits(mBefore)} → ${groupDigits(mAfter)}`);
  if (tBefore !== undefined && tAfter !== undefined) parts.push(`context ${groupDigits(tBefore)} → ${groupDigits(tAfter)} tokens`);
  if (window !== undefined) parts.push(`window ${groupDigits(window)} tokens`);
  if (str(stats.trigger) !== undefined) parts.push(`trigger ${String(stats.trigger)}`);
  return { notes: parts.length > 0 ? [`Letta's compaction_stats: ${parts.join(', ')}`] : [], before: tBefore };
}

export class LettaReader extends RebuildingReader {
  readonly format = 'letta' as const;
  private readonly document = new DocumentLines();

  push(line: RawLine): void {
    this.document.push(line);
  }

  protected stateKey(): string {
    const last = this.document.all[this.document.all.length - 1];
    return `${this.document.lineCount}:${this.document.all.length}:${last?.endOffset ?? 0}:${String(last?.terminated)}`;
  }

  protected build(): Transcript {
    const problems: Problem[] = [];
    const turns: Turn[] = [];
    const checkpoints: Checkpoint[] = [];
    const used = new Set<string>();
    const { agents, spanOf } = this.agents(problems);
    for (const agent of agents) this.readAgent(agent, spanOf, { turns, checkpoints, used, problems });
    problems.sort((a, b) => a.line - b.line);
    return { format: this.format, turns, checkpoints, problems, lineCount: this.document.lineCount };
  }

  /** The agents of the document, and where each node of it sits; problems for what is not an agent file. */
  private agents(problems: Problem[]): { agents: Agent[]; spanOf: SpanOf } {
    const none = { agents: [], spanOf: () => ({ startLine: 0, endLine: 0, startOffset: 0, endOffset: 0 }) };
    if (this.document.all.every((l) => l.text.trim() === '')) return none;
    const { located, problem } = this.document.parse('Letta agent file');
    if (problem) problems.push(problem);
    const whole = this.document.spanOf(0, this.document.text.length);
    const spanOf: SpanOf = (node) => {
      const range = typeof node === 'object' && node !== null ? located.rangeOf(node) : undefined;
      return range ? this.document.spanOf(range[0], range[1]) : whole;
    };
    const root = located.value;
    if (root === undefined) return { agents: [], spanOf };
    let list: unknown[];
    if (isObject(root) && Array.isArray(root.agents)) list = root.agents;
    else if (isObject(root) && Array.isArray(root.messages)) list = [root];
    else {
      problems.push({
        line: whole.startLine,
        severity: 'error',
        message: `line ${whole.startLine}: the file is JSON but holds no "agents" list (and is not an agent with "messages"): it is not a Letta agent file.`,
      });
      return { agents: [], spanOf };
    }
    const agents: Agent[] = [];
    list.forEach((value, index) => {
      const span = spanOf(value);
      if (!isObject(value)) {
        problems.push({
          line: span.startLine,
          severity: 'warning',
          message: `line ${span.startLine}: agent ${index} is not an object; it was skipped.`,
        });
        return;
      }
      const name = str(value.name) ?? str(value.id) ?? `agent ${index}`;
      if (!Array.isArray(value.messages)) {
        problems.push({
          line: span.startLine,
          severity: 'warning',
          message: `line ${span.startLine}: agent ${index} ("${name}") has no "messages" list; none of its messages could be read.`,
        });
        return;
      }
      agents.push({ value, messages: value.messages, index, span, name });
    });
    if (list.length === 0 && problem === undefined) {
      problems.push({
        line: whole.startLine,
        severity: 'warning',
        message: `line ${whole.startLine}: the agent file's "agents" list is empty: there is nothing to check.`,
      });
    } else if (list.length > 0 && agents.every((a) => a.messages.length === 0)) {
      const what =
        agents.length === 0
          ? `none of its ${countOf(list.length, 'agent')} has a "messages" list`
          : `${countOf(agents.length, 'agent')}, every "messages" list empty`;
      problems.push({
        line: whole.startLine,
        severity: 'warning',
        message: `line ${whole.startLine}: the agent file holds no messages (${what}): there is nothing to check.`,
      });
    }
    return { agents, spanOf };
  }

  /** Reads one agent's messages into turns and checkpoints. */
  private readAgent(
    agent: Agent,
    spanOf: SpanOf,
    out: { turns: Turn[]; checkpoints: Checkpoint[]; used: Set<string>; problems: Problem[] },
  ): void {
    const { turns, checkpoints, used, problems } = out;
    const who = `agent ${agent.index} ("${agent.name}")`;
    const firstTurn = turns.length;
    const calls = new CallLinks();
    const inContextList = Array.isArray(agent.value.in_context_message_ids)
      ? agent.value.in_context_message_ids.filter((x): x is string => typeof x === 'string')
      : undefined;
    const inContext = inContextList === undefined ? undefined : new Set(inContextList);
    const fileIds = new Set<string>();
    let outOfContext = 0;
    const agentCheckpoints: Checkpoint[] = [];

    agent.messages.forEach((value, m) => {
      const span = spanOf(value);
      const n = span.startLine;
      const message = isObject(value) ? normalize(value) : undefined;
      if (message === undefined) {
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: message ${m} of ${who} is not a Letta message (no known role or type); it was skipped.`,
        });
        return;
      }
      const ownId = message.id;
      if (ownId !== undefined) fileIds.add(ownId);
      const out = inContext !== undefined && (ownId === undefined || !inContext.has(ownId));
      if (out) outOfContext++;
      let id: TurnId = ownId ?? `agent ${agent.index} message ${m}`;
      if (ownId !== undefined && used.has(ownId)) {
        id = `agent ${agent.index} message ${m}`;
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: message id ${ownId} of ${who} is already used earlier in the file; this message is shown as "${id}".`,
        });
      }
      for (let k = 2; used.has(String(id)); k++) id = `agent ${agent.index} message ${m} (${k})`;
      used.add(String(id));

      const alert =
        message.role === 'user' || message.role === 'system' ? (plainAlertOf(value as JsonObject) ?? lettaAlert(message.text)) : undefined;
      if (alert !== undefined) {
        const checkpoint = this.checkpointOf(alert, String(id), span, turns.length, turns.length - firstTurn, who);
        if (out)
          checkpoint.notes!.push(
            'this summary is itself no longer in context (its id is not in in_context_message_ids): a later compaction or edit removed it',
          );
        checkpoints.push(checkpoint);
        agentCheckpoints.push(checkpoint);
        return;
      }
      const name = isObject(value) ? str(value.name) : undefined;
      const label = message.role === 'tool' && name !== undefined ? name : message.role;
      const turn: Turn = { id, role: message.role, text: message.text, span, label: out ? `${label} (out of context)` : label };
      const answers = calls.answersFor(message.answers);
      if (answers !== undefined) turn.answers = answers;
      for (const call of message.calls) calls.add(call.id, id, call.text);
      turns.push(turn);
    });

    // What is in context, said once at the agent and on each of its checkpoints.
    const n = agent.span.startLine;
    let contextNote: string;
    if (inContext === undefined) {
      contextNote = `${who} has no in_context_message_ids: which of its messages are in context is not recorded`;
    } else {
      const missing = inContextList!.filter((id) => !fileIds.has(id));
      const total = agent.messages.length;
      contextNote =
        outOfContext === 0
          ? `${who}: all ${countOf(total, 'message')} in this file are in context (in_context_message_ids); the evicted ones are not in the file`
          : `${who}: ${groupDigits(total - outOfContext)} of its ${countOf(total, 'message')} in this file are in context, ${groupDigits(outOfContext)} are not (not in in_context_message_ids)`;
      if (outOfContext > 0) {
        problems.push({
          line: n,
          severity: 'info',
          message: `line ${n}: ${groupDigits(outOfContext)} of the ${countOf(total, 'message')} of ${who} are out of context (not in in_context_message_ids); they are shown, labelled "out of context".`,
        });
      }
      if (missing.length > 0) {
        problems.push({
          line: n,
          severity: 'info',
          message: `line ${n}: ${who} lists ${countOf(missing.length, 'in-context message id')} that ${missing.length === 1 ? 'is' : 'are'} not in its messages (${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', …' : ''}).`,
        });
      }
    }
    for (const checkpoint of agentCheckpoints) checkpoint.notes!.push(contextNote);
  }

  /** A checkpoint for a system_alert: nothing here is claimed, and coverage is unverifiable. */
  private checkpointOf(
    alert: LettaAlert,
    summaryId: string,
    span: SourceSpan,
    turnsBefore: number,
    ownBefore: number,
    who: string,
  ): Checkpoint {
    const counts =
      alert.hidden !== undefined
        ? ` (the alert says ${groupDigits(alert.hidden)} of ${groupDigits(alert.total ?? 0)} messages were hidden)`
        : '';
    const unverifiable = `the messages this summary replaced were evicted from ${who} and are not in this file — Letta exports only the messages still in context, and records no ids for what a summary covers${counts}`;
    const stats = statsOf(alert);
    const notes = [
      `summarised messages are not in this file (Letta evicts them and records no ids): nothing here is claimed`,
      ...stats.notes,
    ];
    const others = turnsBefore - ownBefore;
    if (others > 0)
      notes.push(`the ${countOf(others, 'turn')} before it belong to earlier agents in this file, not to ${who}: none is claimed`);
    const checkpoint: Checkpoint = { summaryId, summary: alert.message, claimedIds: [], span, turnsBefore, unverifiable, notes };
    if (stats.before !== undefined && stats.before > 0) checkpoint.recordedPrefixTokens = stats.before;
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    return checkpoint;
  }
}

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
//
// Read as the lines are pushed (streamedDocument.ts): the `messages` of the root (a bare agent) and of each agent in
// `agents` are read a message at a time (objectLists.ts), each turn handed over as it is made, so a large file is
// never held whole. A message's turn needs its agent's name and in-context ids, which Letta writes before its
// `messages`: they are read from the agent's members before the list (ListPlace.holder). What is written after the
// list is known at the end, where the agent's problems, checkpoints and notes are made (finishAgent); a turn whose
// label that changes (in_context_message_ids after the messages) is then copied in its place, its text in memory.
// The one difference from a read of the whole document: a list given twice under one key (JSON keeps the last)
// still counts the ids of the first as used. A document that is an array, or on one line, is read whole.

import type { Checkpoint, Problem, SourceSpan, TextKeeper, Transcript, Turn, TurnId } from '../core/model';
import { countOf, groupDigits } from '../core/displayText';
import { isObject, type JsonLine, type JsonObject } from './jsonLines';
import { locateInLine } from './jsonSpans';
import { lettaAlert, lettaAlertObject, normalize, type LettaAlert } from './langchain';
import type { ListPlace, OutlineDocument } from './objectLists';
import { StreamedDocumentReader, type WholeDocument } from './streamedDocument';
import { lineSpan } from './sourceSpan';
import { CallLinks } from './toolLinks';
import { plainCopy } from './turnCopy';

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

/** What a message's turn needs of its agent: its place in `agents`, its name and its in-context ids. */
interface AgentFields {
  index: number;
  name: string;
  inContext: Set<string> | undefined;
  /** in_context_message_ids as listed (its strings). */
  inContextList: string[] | undefined;
}

function fieldsOf(agent: JsonObject | undefined, index: number): AgentFields {
  const name = str(agent?.name) ?? str(agent?.id) ?? `agent ${index}`;
  const ids = agent?.in_context_message_ids;
  const inContextList = Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : undefined;
  return { index, name, inContext: inContextList && new Set(inContextList), inContextList };
}

function whoOf(fields: AgentFields): string {
  return `agent ${fields.index} ("${fields.name}")`;
}

function sameIds(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((id, k) => id === b[k]);
}

/** Whether a message of own id `ownId` is out of context: in_context_message_ids is given and does not name it. */
function isOut(inContext: Set<string> | undefined, ownId: string | undefined): boolean {
  return inContext !== undefined && (ownId === undefined || !inContext.has(ownId));
}

const OUT_OF_CONTEXT = ' (out of context)';

/** What the agents of one reading share: the ids used so far and how many turns were made (in file order). */
interface Reading {
  used: Set<string>;
  turns: number;
}

/** A problem of a message, made into words once its agent's name is known. */
type MessageProblem = { kind: 'skipped'; line: number; m: number } | { kind: 'renamed'; line: number; ownId: string; id: string };

/** A system_alert met among an agent's messages, made into a checkpoint once the agent is known whole. */
interface AlertMet {
  alert: LettaAlert;
  id: string;
  span: SourceSpan;
  turnsBefore: number;
  ownBefore: number;
  ownId: string | undefined;
}

/** One agent's messages as they are read (readMessage), and what finishAgent makes of them once it is known whole. */
class AgentRead {
  readonly turns: Turn[] = [];
  /** How many values its list holds, messages or not. */
  count = 0;
  readonly problems: MessageProblem[] = [];
  readonly alerts: AlertMet[] = [];
  /** The own id of each turn whose id is not it (renamed, or it has none), by the turn's place among the agent's. */
  readonly ownIdAt = new Map<number, string | undefined>();
  /** The in-context ids its messages have, when the in-context ids are known as they are read (else none is kept). */
  readonly fileIds = new Set<string>();
  outOfContext = 0;
  readonly calls: CallLinks;

  constructor(
    readonly fields: AgentFields,
    readonly reading: Reading,
    keeper: TextKeeper | undefined,
  ) {
    this.calls = new CallLinks(keeper);
  }
}

/** What the reader has read: a list of an object read a message at a time, or a whole document. */
class ReadState {
  /** The agent whose list this state reads (undefined: a list no read of the whole document reads). */
  agent: AgentRead | undefined;
  /** The first list's state: the readings of the read's lists, by what they read (`agents`, or a bare agent's). */
  readonly readings = new Map<string, Reading>();
  /** A whole document's transcript, once read. */
  whole: { turns: Turn[]; checkpoints: Checkpoint[]; problems: Problem[] } | undefined;

  constructor(readonly keeper: TextKeeper | undefined) {}
}

/** An agent of the document, and its messages' list. */
interface AgentEntry {
  value: JsonObject;
  messages: unknown[];
  index: number;
  span: SourceSpan;
}

export class LettaReader extends StreamedDocumentReader<ReadState> {
  readonly format = 'letta' as const;
  protected readonly documentName = 'Letta agent file';
  protected override readonly listKey = 'messages';
  /** The root's `messages` (a bare agent), and those of the objects in its `agents`. */
  protected override readonly listMaxLevel = 1;
  protected override readonly listsInArrays = true;
  protected override readonly arraysAsDocuments = true;

  protected newState(keeper: TextKeeper | undefined): ReadState {
    return new ReadState(keeper);
  }

  /** A list opens: the agent it is the messages of, if a read of the whole document reads it, with its members before it. */
  protected override openList(state: ReadState, _key: string, { path, holder }: ListPlace, first: ReadState): void {
    const bare = path.length === 1;
    const index = bare ? 0 : path[1];
    if (!bare && !(path.length === 3 && path[0] === 'agents' && typeof index === 'number')) return;
    const name = bare ? 'agent' : 'agents';
    let reading = first.readings.get(name);
    if (reading === undefined) first.readings.set(name, (reading = { used: new Set(), turns: 0 }));
    state.agent = new AgentRead(fieldsOf(holder(), index as number), reading, state.keeper);
  }

  protected readElement(state: ReadState, value: unknown, span: SourceSpan): void {
    if (state.agent !== undefined) this.readMessage(state.agent, value, span);
  }

  /** A record is the whole document on one line; a line after it is not read. */
  protected readRecord(state: ReadState, { line }: JsonLine, index: number): void {
    if (index > 0) {
      (state.whole?.problems ?? []).push({
        line: line.line,
        severity: 'error',
        message: `line ${line.line}: the agent file ended on an earlier line; this line was not read.`,
      });
      return;
    }
    const inLine = locateInLine(line);
    state.whole = this.readAgents(
      inLine.value,
      (node) => inLine.spanOf(node),
      lineSpan(line),
      false,
      () => undefined,
    );
  }

  protected readWhole(state: ReadState, { located, spanOf, whole }: WholeDocument): void {
    state.whole = this.readAgents(located.value, spanOf, whole, located.error !== undefined, () => undefined);
  }

  protected transcriptOf(state: ReadState, problems: Problem[], lineCount: number): Transcript {
    const read = state.whole ?? { turns: [], checkpoints: [], problems: [] };
    return this.transcriptWith(read, problems, lineCount);
  }

  /** A document read a message at a time: its agents, in the outline, each list's messages read into its state. */
  protected override transcriptOfOutline(
    outline: OutlineDocument,
    stateOf: (list: unknown) => ReadState | undefined,
    _fresh: () => ReadState,
    problems: Problem[],
    lineCount: number,
  ): Transcript {
    const read = this.readAgents(
      outline.located.value,
      (node) => outline.spanOf(node),
      outline.whole,
      outline.error !== undefined,
      (list) => stateOf(list)?.agent,
    );
    return this.transcriptWith(read, problems, lineCount);
  }

  private transcriptWith(
    read: { turns: Turn[]; checkpoints: Checkpoint[]; problems: Problem[] },
    problems: Problem[],
    lineCount: number,
  ): Transcript {
    const all = [...problems, ...read.problems];
    all.sort((a, b) => a.line - b.line);
    return { format: this.format, turns: read.turns.slice(), checkpoints: read.checkpoints.slice(), problems: all, lineCount };
  }

  /**
   * The transcript of a document's agents: `root` its value (parsed, or its outline), `broken` whether it has a
   * syntax error; `readOf(list)` the agent read of a list read a message at a time (undefined: read it here).
   */
  private readAgents(
    root: unknown,
    spanOf: SpanOf,
    whole: SourceSpan,
    broken: boolean,
    readOf: (list: unknown[]) => AgentRead | undefined,
  ): { turns: Turn[]; checkpoints: Checkpoint[]; problems: Problem[] } {
    const out = { turns: [] as Turn[], checkpoints: [] as Checkpoint[], problems: [] as Problem[] };
    const agents = this.agentsOf(root, spanOf, whole, broken, readOf, out.problems);
    // Agents read here continue the reading of those read a message at a time, which come before them.
    let reading: Reading | undefined;
    for (const agent of agents) {
      let read = readOf(agent.messages);
      if (read === undefined) {
        reading ??= this.readingAfter(agents, readOf);
        read = new AgentRead(fieldsOf(agent.value, agent.index), reading, undefined);
        for (const value of agent.messages) this.readMessage(read, value, spanOf(value));
      }
      this.finishAgent(read, fieldsOf(agent.value, agent.index), agent.span, out);
    }
    return out;
  }

  /** A reading that goes on from the agents read a message at a time (a copy: each finish reads the rest again). */
  private readingAfter(agents: AgentEntry[], readOf: (list: unknown[]) => AgentRead | undefined): Reading {
    const last = agents.map((agent) => readOf(agent.messages)).filter((read) => read !== undefined);
    const streamed = last[last.length - 1]?.reading;
    return streamed === undefined ? { used: new Set(), turns: 0 } : { used: new Set(streamed.used), turns: streamed.turns };
  }

  /** The agents of the document; problems for what is not an agent file, or an agent that is not one. */
  private agentsOf(
    root: unknown,
    spanOf: SpanOf,
    whole: SourceSpan,
    broken: boolean,
    readOf: (list: unknown[]) => AgentRead | undefined,
    problems: Problem[],
  ): AgentEntry[] {
    if (root === undefined) return [];
    let list: unknown[];
    if (isObject(root) && Array.isArray(root.agents)) list = root.agents;
    else if (isObject(root) && Array.isArray(root.messages)) list = [root];
    else {
      problems.push({
        line: whole.startLine,
        severity: 'error',
        message: `line ${whole.startLine}: the file is JSON but holds no "agents" list (and is not an agent with "messages"): it is not a Letta agent file.`,
      });
      return [];
    }
    const agents: AgentEntry[] = [];
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
      if (!Array.isArray(value.messages)) {
        const who = whoOf(fieldsOf(value, index));
        problems.push({
          line: span.startLine,
          severity: 'warning',
          message: `line ${span.startLine}: ${who} has no "messages" list; none of its messages could be read.`,
        });
        return;
      }
      agents.push({ value, messages: value.messages, index, span });
    });
    const sizeOf = (agent: AgentEntry): number => readOf(agent.messages)?.count ?? agent.messages.length;
    if (list.length === 0 && !broken) {
      problems.push({
        line: whole.startLine,
        severity: 'warning',
        message: `line ${whole.startLine}: the agent file's "agents" list is empty: there is nothing to check.`,
      });
    } else if (list.length > 0 && agents.every((a) => sizeOf(a) === 0)) {
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
    return agents;
  }

  /** Reads one message of an agent: a turn (handed over), a system_alert (a checkpoint, made at the end), or a problem. */
  private readMessage(read: AgentRead, value: unknown, span: SourceSpan): void {
    const { fields, reading } = read;
    const m = read.count++;
    const n = span.startLine;
    const message = isObject(value) ? normalize(value) : undefined;
    if (message === undefined) {
      read.problems.push({ kind: 'skipped', line: n, m });
      return;
    }
    const ownId = message.id;
    if (ownId !== undefined && fields.inContext?.has(ownId) === true) read.fileIds.add(ownId);
    const out = isOut(fields.inContext, ownId);
    if (out) read.outOfContext++;
    let id: TurnId = ownId ?? `agent ${fields.index} message ${m}`;
    if (ownId !== undefined && reading.used.has(ownId)) {
      id = `agent ${fields.index} message ${m}`;
      read.problems.push({ kind: 'renamed', line: n, ownId, id });
    }
    for (let k = 2; reading.used.has(String(id)); k++) id = `agent ${fields.index} message ${m} (${k})`;
    reading.used.add(String(id));

    const alert =
      message.role === 'user' || message.role === 'system' ? (plainAlertOf(value as JsonObject) ?? lettaAlert(message.text)) : undefined;
    if (alert !== undefined) {
      read.alerts.push({ alert, id: String(id), span, turnsBefore: reading.turns, ownBefore: read.turns.length, ownId });
      return;
    }
    const name = str((value as JsonObject).name);
    const label = message.role === 'tool' && name !== undefined ? name : message.role;
    const turn: Turn = { id, role: message.role, text: message.text, span, label: out ? `${label}${OUT_OF_CONTEXT}` : label };
    const answers = read.calls.answersFor(message.answers);
    if (answers !== undefined) turn.answers = answers;
    for (const call of message.calls) read.calls.add(call.id, id, call.text);
    if (id !== ownId) read.ownIdAt.set(read.turns.length, ownId);
    read.turns.push(this.keepTurn(turn));
    reading.turns++;
  }

  /**
   * Adds an agent's turns, checkpoints and problems to `out`, with its fields as the whole agent gives them
   * (`fields`; its messages were read with those before them). Changes nothing of `read`: each finish makes them anew.
   */
  private finishAgent(
    read: AgentRead,
    fields: AgentFields,
    agentSpan: SourceSpan,
    out: { turns: Turn[]; checkpoints: Checkpoint[]; problems: Problem[] },
  ): void {
    const { turns, checkpoints, problems } = out;
    const who = whoOf(fields);
    const late = !sameIds(read.fields.inContextList, fields.inContextList);
    const ownIdOf = (k: number, turn: Turn): string | undefined => (read.ownIdAt.has(k) ? read.ownIdAt.get(k) : String(turn.id));
    let outOfContext = read.outOfContext;
    let fileIds: ReadonlySet<string> = read.fileIds;
    // One at a time: an agent may have more turns than a call takes arguments.
    if (!late) for (const turn of read.turns) turns.push(turn);
    else {
      // The messages' own ids, from its turns and alerts: which in-context ids are in the file.
      const own = new Set<string>();
      read.turns.forEach((turn, k) => {
        const ownId = ownIdOf(k, turn);
        if (ownId !== undefined) own.add(ownId);
      });
      for (const met of read.alerts) if (met.ownId !== undefined) own.add(met.ownId);
      fileIds = own;
      // in_context_message_ids came after the messages: each turn's label is made again, in a copy.
      outOfContext = read.alerts.filter((a) => isOut(fields.inContext, a.ownId)).length;
      read.turns.forEach((turn, k) => {
        const ownId = ownIdOf(k, turn);
        const wasOut = isOut(read.fields.inContext, ownId);
        const out = isOut(fields.inContext, ownId);
        if (out) outOfContext++;
        const base = wasOut ? turn.label!.slice(0, -OUT_OF_CONTEXT.length) : turn.label!;
        turns.push(wasOut === out ? turn : { ...plainCopy(turn), label: out ? `${base}${OUT_OF_CONTEXT}` : base });
      });
    }
    for (const problem of read.problems) {
      problems.push(
        problem.kind === 'skipped'
          ? {
              line: problem.line,
              severity: 'warning',
              message: `line ${problem.line}: message ${problem.m} of ${who} is not a Letta message (no known role or type); it was skipped.`,
            }
          : {
              line: problem.line,
              severity: 'warning',
              message: `line ${problem.line}: message id ${problem.ownId} of ${who} is already used earlier in the file; this message is shown as "${problem.id}".`,
            },
      );
    }
    const agentCheckpoints = read.alerts.map((met) => {
      const checkpoint = this.checkpointOf(met.alert, met.id, met.span, met.turnsBefore, met.ownBefore, who);
      if (isOut(fields.inContext, met.ownId))
        checkpoint.notes!.push(
          'this summary is itself no longer in context (its id is not in in_context_message_ids): a later compaction or edit removed it',
        );
      return checkpoint;
    });
    for (const checkpoint of agentCheckpoints) checkpoints.push(checkpoint);

    // What is in context, said once at the agent and on each of its checkpoints.
    const n = agentSpan.startLine;
    let contextNote: string;
    if (fields.inContextList === undefined) {
      contextNote = `${who} has no in_context_message_ids: which of its messages are in context is not recorded`;
    } else {
      const missing = fields.inContextList.filter((id) => !fileIds.has(id));
      const total = read.count;
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

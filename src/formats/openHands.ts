// Reader for OpenHands event streams: V0 events ({id, source, action|observation, args|content, …}) as a JSON
// array or as JSONL, V1 SDK events ({"kind": "MessageEvent" | "ActionEvent" | … | "Condensation"}), and evaluation
// output JSONL whose records each hold a run's `history`.
//
// Turns: every event the model sees (user/agent messages, actions, observations, system prompt, recall), id = the
// event id. Agent-state changes, null events and condensation requests are not shown to the model and are skipped.
// A result `answers` the action it observes: a V0 observation its `cause` (the action rendered as a tool call of the
// action's name with its args, bookkeeping args left out), a V1 observation its `action_id` (or `tool_call_id`).
// An evaluation file holds one run per record: the runs are read one after the other, and each event id is
// prefixed with its record number ("2:17") so ids stay unique; a condensation claims ids of its own run only.
//
// Checkpoints: each condensation (V0 action "condensation", V1 kind "Condensation"). Claimed = its
// `forgotten_event_ids`, or every id of `forgotten_events_start_id`..`forgotten_events_end_id` — expanded as
// OpenHands expands it, including ids that are not events the model saw; how many of them are turns here is
// reported in a note and a problem. A condensation with a summary also claims what the run's previous summarised
// condensation claimed: OpenHands folds the previous summary into the new one and shows only the newest.
// A null summary means the events were dropped, not summarised: the claim is kept, with a note.
//
// Read as the lines are pushed (streamedDocument.ts): an event array an element at a time, JSONL a batch of records
// at a time, an object holding `history` or `events` (a run saved alone, a conversation's events) its list an event at
// a time (objectLists.ts: the root's own lists only, as a read of the whole document looks there only), and a
// document of another shape whole.

import type { Checkpoint, Problem, Role, SourceSpan, TextKeeper, Transcript, Turn, TurnId } from '../core/model';
import { sealRecord } from '../core/sealedRecord';
import { isObject, type JsonLine, type JsonObject } from './jsonLines';
import { locateInLine } from './jsonSpans';
import type { OutlineDocument } from './objectLists';
import { StreamedDocumentReader, type WholeDocument } from './streamedDocument';
import { lineSpan } from './sourceSpan';
import { argsText, textOf, toolCallText } from './textOf';
import { CallLinks } from './toolLinks';

const SKIPPED_ACTIONS = new Set(['change_agent_state', 'null', 'condensation_request']);
const SKIPPED_OBSERVATIONS = new Set(['agent_state_changed', 'null']);
const SKIPPED_KINDS = new Set([
  'ConversationStateUpdateEvent',
  'PauseEvent',
  'CondensationRequest',
  'CondensationSummaryEvent',
  'TokenEvent',
]);
const ARG_NOISE = new Set([
  'security_risk',
  'confirmation_state',
  'impl_source',
  'is_input',
  'blocking',
  'hidden',
  'image_urls',
  'wait_for_response',
  'thought',
]);
const MAX_RANGE = 1_000_000;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isEventId(value: unknown): value is number | string {
  return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && value !== '');
}

/** Compresses sorted integers into "3–7, 9" for messages. */
function ranges(ids: number[], max = 6): string {
  const parts: string[] = [];
  let i = 0;
  while (i < ids.length) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j] + 1) j++;
    parts.push(i === j ? `${ids[i]}` : `${ids[i]}–${ids[j]}`);
    i = j + 1;
  }
  return parts.length > max ? `${parts.slice(0, max).join(', ')}, …` : parts.join(', ');
}

function v0Text(event: JsonObject): string {
  const args = isObject(event.args) ? event.args : {};
  if (event.action !== undefined) {
    if (event.action === 'message') return textOf(args.content ?? event.message);
    const parts: string[] = [];
    if (typeof args.thought === 'string' && args.thought !== '') parts.push(args.thought);
    if (typeof event.message === 'string' && event.message !== '') parts.push(event.message);
    for (const [key, value] of Object.entries(args)) {
      if (ARG_NOISE.has(key) || value === null || value === undefined || value === '') continue;
      if (typeof value === 'string') parts.push(value);
      else if (typeof value !== 'boolean') parts.push(`${key}: ${argsText(value)}`);
    }
    return parts.join('\n');
  }
  const content = textOf(event.content);
  return content !== '' ? content : textOf(event.message);
}

/** A V0 action's args as a call's arguments: without the bookkeeping args and the empty ones. */
function callArgs(args: JsonObject): JsonObject {
  const kept: JsonObject = {};
  for (const [key, value] of Object.entries(args)) {
    if (ARG_NOISE.has(key) || value === null || value === undefined || value === '') continue;
    kept[key] = value;
  }
  return kept;
}

/** Keys of a V1 action in CallLinks: by event id (what an observation's action_id names) and by tool_call_id. */
const byEvent = (id: TurnId) => `event ${String(id)}`;
const byToolCall = (id: string) => `tool call ${id}`;

function v1Text(event: JsonObject): { role: Role; text: string } {
  switch (event.kind) {
    case 'MessageEvent': {
      const message = isObject(event.llm_message) ? event.llm_message : {};
      const role =
        message.role === 'assistant' ? 'assistant' : message.role === 'system' ? 'system' : message.role === 'tool' ? 'tool' : 'user';
      return { role, text: textOf(message.content) };
    }
    case 'ActionEvent': {
      const parts = [textOf(event.thought), textOf(event.reasoning_content)];
      const call = isObject(event.tool_call) ? event.tool_call : undefined;
      parts.push(toolCallText(event.tool_name, event.action ?? call));
      return { role: 'assistant', text: parts.filter((p) => p !== '').join('\n') };
    }
    case 'ObservationEvent': {
      const observation = isObject(event.observation) ? event.observation : {};
      const text = textOf(observation.content ?? observation.output ?? observation.text);
      return { role: 'tool', text: text !== '' ? text : argsText(observation) };
    }
    case 'SystemPromptEvent': {
      const prompt = event.system_prompt;
      return { role: 'system', text: isObject(prompt) ? textOf(prompt.text ?? prompt) : textOf(prompt) };
    }
    case 'AgentErrorEvent':
      return { role: 'tool', text: textOf(event.error) };
    case 'UserRejectObservation':
      return { role: 'tool', text: textOf(event.rejection_reason) };
    default:
      return { role: 'system', text: argsText(event) };
  }
}

/** What the reader has read so far: the turns and checkpoints of the events read, and what reading them needs. */
class ReadState {
  readonly problems: Problem[] = [];
  readonly turns: Turn[] = [];
  readonly checkpoints: Checkpoint[] = [];
  readonly turnIds = new Set<string>();
  /** Ids of events seen but not shown to the model, per run. */
  readonly hidden = new Set<string>();
  readonly folded = new Map<number, TurnId[]>();
  readonly calls: CallLinks;
  /** How many events had no id; how many evaluation runs were read, and the number of the last that held an event. */
  unnamed = 0;
  runs = 0;
  lastRunWithEvents = 0;
  /** The run of the list of events read an event at a time (a document's `history`), if it is one. */
  listRun: number | undefined;

  /** `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  constructor(keeper?: TextKeeper) {
    this.calls = new CallLinks(keeper);
  }
}

const idOf = (run: number | undefined, id: number | string): TurnId => (run === undefined ? id : `${run}:${id}`);

/** The list of events a read of the whole document reads (readContainer): a run's `history`, else `events`. */
function eventListOf(value: unknown): unknown[] | undefined {
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.history)) return value.history;
  return Array.isArray(value.events) ? value.events : undefined;
}

export class OpenHandsReader extends StreamedDocumentReader<ReadState> {
  readonly format = 'openhands' as const;
  protected readonly documentName = 'OpenHands event file';
  /** A document that is an object: its root's `history` or `events`, where a read of the whole document looks. */
  protected override readonly listKey = ['history', 'events'];
  protected override readonly listMaxLevel = 0;

  protected newState(keeper: TextKeeper | undefined): ReadState {
    return new ReadState(keeper);
  }

  /** A record is an event, a run (its `history`, each event located inside the line), an array of events or an object with `events`. */
  protected readRecord(state: ReadState, { line, value }: JsonLine): void {
    if (isObject(value) && Array.isArray(value.history)) {
      const inLine = locateInLine(line);
      if (this.readContainer(state, inLine.value, (node) => inLine.spanOf(node))) return;
    }
    if (!this.readContainer(state, value, () => lineSpan(line))) this.readEvent(state, value, lineSpan(line), undefined);
  }

  /** A `history` list is a run, numbered as a read of the whole document numbers it (readContainer). */
  protected override openList(state: ReadState, key: string): void {
    if (key === 'history') state.listRun = ++state.runs;
  }

  protected readElement(state: ReadState, value: unknown, span: SourceSpan): void {
    if (state.listRun !== undefined) state.lastRunWithEvents = state.listRun;
    this.readEvent(state, value, span, state.listRun);
  }

  /** A document that is an object: the list a read of the whole document reads, read as it was pushed if it was. */
  protected override transcriptOfOutline(
    outline: OutlineDocument,
    stateOf: (list: unknown) => ReadState | undefined,
    fresh: () => ReadState,
    problems: Problem[],
    lineCount: number,
  ): Transcript {
    const list = eventListOf(outline.located.value);
    const read = list === undefined ? undefined : stateOf(list);
    if (read !== undefined) return this.transcriptOf(read, problems, lineCount);
    // No list, or one read with the outline (past the lists read an event at a time): read here, as a whole document.
    const state = fresh();
    this.readWhole(state, outline);
    return this.transcriptOf(state, problems, lineCount);
  }

  protected readWhole(state: ReadState, { located, spanOf }: WholeDocument): void {
    if (located.value !== undefined && !this.readContainer(state, located.value, spanOf)) {
      this.readEvent(state, located.value, spanOf(located.value), undefined);
    }
  }

  /**
   * Every condensation read (settled once made): it is sealed, and what it claims is among the turns before it
   * (an id it names that comes later is not claimed).
   */
  protected override checkpointsIn(state: ReadState): number {
    return state.checkpoints.length;
  }

  protected transcriptOf(state: ReadState, problems: Problem[], lineCount: number): Transcript {
    if (state.lastRunWithEvents > 1) {
      problems.push({
        line: 0,
        severity: 'info',
        message: `this evaluation file holds ${state.lastRunWithEvents} runs; they are read one after the other, and event ids are prefixed with the run number ("2:17").`,
      });
    }
    const all = [...problems, ...state.problems];
    all.sort((a, b) => a.line - b.line);
    return { format: this.format, turns: state.turns.slice(), checkpoints: state.checkpoints.slice(), problems: all, lineCount };
  }

  /** Reads the events of an array, of a run's `history` or of an object's `events`; false when `value` is none. */
  private readContainer(state: ReadState, value: unknown, span: (node: unknown) => SourceSpan): boolean {
    if (Array.isArray(value)) {
      for (const event of value) this.readEvent(state, event, span(event), undefined);
      return true;
    }
    if (isObject(value) && Array.isArray(value.history)) {
      const run = ++state.runs;
      if (value.history.length > 0) state.lastRunWithEvents = run;
      for (const event of value.history) this.readEvent(state, event, span(event), run);
      return true;
    }
    if (isObject(value) && Array.isArray(value.events)) {
      for (const event of value.events) this.readEvent(state, event, span(event), undefined);
      return true;
    }
    return false;
  }

  /** Reads one event into the state: a turn, a checkpoint, or an event the model does not see. */
  private readEvent(state: ReadState, event: unknown, span: SourceSpan, run: number | undefined): void {
    const { problems, turns, turnIds, hidden } = state;
    const n = span.startLine;
    if (!isObject(event)) {
      problems.push({ line: n, severity: 'error', message: `line ${n}: an event that is not a JSON object; it was skipped.` });
      return;
    }
    const rawId = isEventId(event.id) ? event.id : undefined;
    const isCondensation = event.action === 'condensation' || event.kind === 'Condensation';
    if (isCondensation) {
      // Sealed: never changed once read, so the checkpoint memo keeps it as it is, not a copy of its claims (each
      // condensation claims every event forgotten before it: 15M ids at 1 GB with 78 condensations).
      state.checkpoints.push(sealRecord(this.checkpointOf(event, span, run, rawId, state)));
      if (rawId !== undefined) hidden.add(String(idOf(run, rawId)));
      return;
    }
    let role: Role;
    let text: string;
    let label: string;
    if (typeof event.kind === 'string') {
      if (SKIPPED_KINDS.has(event.kind)) {
        if (rawId !== undefined) hidden.add(String(idOf(run, rawId)));
        return;
      }
      ({ role, text } = v1Text(event));
      label = str(event.tool_name) ?? event.kind.replace(/Event$/, '');
    } else if (typeof event.action === 'string') {
      if (SKIPPED_ACTIONS.has(event.action)) {
        if (rawId !== undefined) hidden.add(String(idOf(run, rawId)));
        return;
      }
      role = event.source === 'user' ? 'user' : event.action === 'system' ? 'system' : 'assistant';
      text = v0Text(event);
      label = event.action;
    } else if (typeof event.observation === 'string') {
      if (SKIPPED_OBSERVATIONS.has(event.observation)) {
        if (rawId !== undefined) hidden.add(String(idOf(run, rawId)));
        return;
      }
      role = event.source === 'user' ? 'user' : 'tool';
      text = v0Text(event);
      label = `${event.observation} result`;
    } else {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: an event with neither "action", "observation" nor "kind"; it is not an OpenHands event and was skipped.`,
      });
      return;
    }
    let id: TurnId;
    if (rawId === undefined) {
      id = idOf(run, `unnumbered-${++state.unnamed}`);
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: an event without an "id"; it is shown as ${String(id)} and no condensation can point at it.`,
      });
    } else id = idOf(run, rawId);
    if (turnIds.has(String(id))) {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: event id ${String(id)} appears twice; the second event was skipped.`,
      });
      return;
    }
    turnIds.add(String(id));
    const turn: Turn = { id, role, text, span, label };
    this.link(event, turn, run, state.calls);
    turns.push(this.keepTurn(turn));
  }

  /** Records an action as a call, or links an observation to the action it observes. */
  private link(event: JsonObject, turn: Turn, run: number | undefined, calls: CallLinks): void {
    let answers: Turn['answers'];
    if (event.kind === 'ActionEvent') {
      const call = isObject(event.tool_call) ? event.tool_call : undefined;
      const text = toolCallText(event.tool_name, event.action ?? call);
      calls.add(byEvent(turn.id), turn.id, text);
      const callId = str(event.tool_call_id) ?? (call !== undefined ? str(call.id) : undefined);
      if (callId !== undefined) calls.add(byToolCall(callId), turn.id, text);
    } else if (typeof event.kind === 'string') {
      if (isEventId(event.action_id)) answers = calls.answersFor([byEvent(idOf(run, event.action_id))]);
      const callId = str(event.tool_call_id);
      if (answers === undefined && callId !== undefined) answers = calls.answersFor([byToolCall(callId)]);
    } else if (typeof event.action === 'string') {
      if (event.action !== 'message' && event.action !== 'system') {
        calls.add(byEvent(turn.id), turn.id, toolCallText(event.action, callArgs(isObject(event.args) ? event.args : {})));
      }
    } else if (isEventId(event.cause)) {
      answers = calls.answersFor([byEvent(idOf(run, event.cause))]);
    }
    if (answers !== undefined) turn.answers = answers;
  }

  private checkpointOf(
    event: JsonObject,
    span: SourceSpan,
    run: number | undefined,
    rawId: number | string | undefined,
    state: ReadState,
  ): Checkpoint {
    const { turns, turnIds, hidden, folded, problems } = state;
    const k = state.checkpoints.length;
    const n = span.startLine;
    const args = isObject(event.args) ? event.args : event;
    const idIn = (id: number | string): TurnId => idOf(run, id);
    const summaryId = rawId !== undefined ? `condensation ${String(idIn(rawId))}` : `condensation ${k + 1}`;
    const summary = typeof args.summary === 'string' ? args.summary : '';
    const notes: string[] = [];
    let own: (number | string)[] = [];
    const start = args.forgotten_events_start_id;
    const end = args.forgotten_events_end_id;
    if (Array.isArray(args.forgotten_event_ids)) {
      own = args.forgotten_event_ids.filter(isEventId);
      if (own.length !== args.forgotten_event_ids.length) {
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: ${summaryId} lists forgotten_event_ids that are not event ids; they were ignored.`,
        });
      }
    } else if (typeof start === 'number' && typeof end === 'number' && Number.isInteger(start) && Number.isInteger(end)) {
      if (start > end) {
        problems.push({
          line: n,
          severity: 'error',
          message: `line ${n}: ${summaryId} has forgotten_events_start_id ${start} after forgotten_events_end_id ${end}; it claims nothing. The range should run from the lower id to the higher.`,
        });
      } else if (end - start + 1 > MAX_RANGE) {
        problems.push({
          line: n,
          severity: 'error',
          message: `line ${n}: ${summaryId} claims the range ${start}–${end} (${end - start + 1} ids), too large to expand; it claims nothing here.`,
        });
      } else {
        for (let id = start; id <= end; id++) own.push(id);
        const inTurns = own.filter((id) => turnIds.has(String(idIn(id))));
        const unseen = own.filter((id) => hidden.has(String(idIn(id))));
        const absent = own.filter((id) => !turnIds.has(String(idIn(id))) && !hidden.has(String(idIn(id))));
        const note = `forgotten range ${start}–${end} expanded over ${own.length} ids (as OpenHands does): ${inTurns.length} are turns in this file, ${unseen.length} are events not shown to the model, ${absent.length} are not events in this file`;
        notes.push(note);
        if (inTurns.length < own.length) {
          const which = absent.length > 0 ? ` (not in this file: ${ranges(absent as number[])})` : '';
          problems.push({
            line: n,
            severity: 'warning',
            message: `line ${n}: ${summaryId} claims the range ${start}–${end}, which OpenHands expands over all ${own.length} ids, but only ${inTurns.length} of them are events the model saw here${which}. The rest are claimed ids no summary can cover.`,
          });
        }
      }
    } else {
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: ${summaryId} has neither forgotten_event_ids nor a forgotten_events_start_id/end_id range; it claims nothing.`,
      });
    }
    if (Array.isArray(args.forgotten_event_ids)) {
      const missing = own.filter((id) => !turnIds.has(String(idIn(id))));
      if (missing.length > 0) {
        notes.push(`${missing.length} of the ${own.length} forgotten_event_ids are not turns in this file`);
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: ${summaryId} forgets ${missing.length} ids that are not events the model saw in this file (${missing.slice(0, 6).map(String).join(', ')}${missing.length > 6 ? ', …' : ''}).`,
        });
      }
    }
    const runKey = run ?? 0;
    let claimedIds: TurnId[] = own.map(idIn);
    const previous = folded.get(runKey);
    if (summary !== '') {
      if (previous !== undefined && previous.length > 0) {
        const mine = new Set(claimedIds.map(String));
        const carried = previous.filter((id) => !mine.has(String(id)));
        claimedIds = [...carried, ...claimedIds];
        notes.push(`also claims the ${carried.length} ids of the previous summarised condensation (its summary is folded into this one)`);
      }
      folded.set(runKey, claimedIds);
    } else {
      notes.push('no summary: the forgotten events were dropped, not summarised');
      problems.push({
        line: n,
        severity: 'info',
        message: `line ${n}: ${summaryId} has no summary; the ${own.length} events it forgets are dropped from the context, covered by nothing.`,
      });
    }
    const checkpoint: Checkpoint = { summaryId, summary, claimedIds, span, turnsBefore: turns.length, notes };
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    return checkpoint;
  }
}

// Reader for Claude Code session files (~/.claude/projects/<project>/<sessionId>.jsonl).
//
// Turns: one per assistant reply (records sharing `message.id` between two compactions are one turn, spanning first to last record; its
// `usage.output_tokens` — the largest value among those records, the earlier ones are streaming stubs — is the
// turn's recorded size), one per user prompt, one per tool-result record (role 'tool'). Skipped: progress,
// file-history-snapshot, queue-operation and other bookkeeping records, `system` records other than
// compact_boundary, `type:"summary"` title records, `isMeta` reminders, transcript-only records and
// sidechain (sub-agent) records. Thinking blocks are not part of a turn's text (see textOf.ts). A tool-result turn
// `answers` the reply whose tool_use blocks its tool_result blocks name (tool_use_id = tool_use id).
//
// Checkpoints: each `compact_boundary` with the `isCompactSummary` record after it. Claimed turns: walk
// `parentUuid` back from the boundary's `logicalParentUuid` to the previous boundary; every turn with a record on
// that chain is claimed, plus the tool results answering a claimed reply's tool calls (parallel tool results
// hang off the chain as siblings); turns kept verbatim after the summary are removed: `preservedSegment`
// {headUuid, anchorUuid, tailUuid} (the chain from tail back to head) and `preservedMessages` (a list of uuids, or
// newer {anchorUuid, uuids[], allUuids[]}). Their `anchorUuid` is the summary record's uuid.
// Other `compactMetadata` facts: `preTokens` is the recorded prefix; `postTokens` (the conversation right after the
// compaction) is the recorded summary size when nothing was preserved, a note otherwise; `durationMs`,
// `cumulativeDroppedTokens` and `preCompactDiscoveredTools` are notes. A boundary may have `parentUuid: null` and a
// `level`; only `logicalParentUuid` is followed.
// A checkpoint reads only the records up to its own last record (stable history, issue #10): a uuid stands for its
// first record, and uuids first seen later are not in the file for it.
// When `logicalParentUuid` is not in the file:
//  - if the boundary belongs to another session than the file's (the session with the most messages before the
//    boundary: a continued session that copied the parent's compaction in), nothing is claimed: the summarised
//    turns are in the parent session's file;
//  - otherwise the walk starts from the last message before the boundary — an inference, said so in a problem
//    and a note on the checkpoint.
// The summariser's own run (`<sessionId>/subagents/agent-acompact-*.jsonl`, given as side files) tells whether its
// raw output closed `</summary>`.
// Read as it grows: what finish() read is kept (ReadState), and lines appended are read in proportion to themselves;
// turns and checkpoints that did not change stay the same objects, and one a finish returned is never changed.
// Read once (`check`), the records are let go once read: the claims read the uuids' chain (uuidChain.ts), and a
// boundary keeps its own records. A large file's turns are also handed to ReaderContext.keepTurn as the next one
// begins (their texts then go to disk).

import { fileNameOf, groupDigits } from '../core/displayText';
import { sealRecord } from '../core/sealedRecord';
import { TurnKeyIndex } from '../core/turnIdIndex';
import type {
  Checkpoint,
  Problem,
  RawLine,
  ReaderContext,
  SourceSpan,
  TextKeeper,
  Transcript,
  Turn,
  TurnId,
  TruncationHints,
} from '../core/model';
import { isObject, type JsonLinesBuffer, type JsonObject } from './jsonLines';
import { PushedRecords, READ_AHEAD_RECORDS } from './pushedRecords';
import { RebuildingReader } from './rebuildingReader';
import { joinSpans, lineSpan } from './sourceSpan';
import { textOf, thinkingOf, toolNames } from './textOf';
import { ResultTurnsOfCalls } from './resultTurnsOfCalls';
import { CallLinks, callsOf } from './toolLinks';
import { UuidChain } from './uuidChain';
import { plainCopy } from './turnCopy';

/** Record types that carry nothing the model saw. */
const NOISE_TYPES = new Set([
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'summary',
  'attachment',
  'custom-title',
  'tag',
  'agent-name',
  'last-prompt',
  'pr-link',
  'ai-title',
  'mode',
  'permission-mode',
  'agent-color',
  'agent-setting',
  'worktree-state',
]);

/** The phrase Claude Code appends to an automatic compaction's summary (not to a manual /compact). */
export const CLAUDE_CODE_CLOSING = 'Please continue the conversation';
const NINE_SECTIONS = /(?:^|\n)[^\S\n]*\**1\.\s*(?:\*+\s*)?Primary Request and Intent/i; // unambiguous: linear on runs of newlines, spaces or stars

/**
 * The record fields this reader reads. A record is kept with these only (Claude Code repeats a tool's output in
 * `toolUseResult`, and file snapshots and progress data are large): the rest is never held after parsing.
 */
const READ_FIELDS = [
  'type',
  'subtype',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'sessionId',
  'message',
  'isSidechain',
  'isCompactSummary',
  'isVisibleInTranscriptOnly',
  'isMeta',
  'compactMetadata',
] as const;

/** `value` with only the fields this reader reads, when it is an object (anything else as it is). */
function readFields(value: unknown): unknown {
  if (!isObject(value)) return value;
  const kept: JsonObject = {};
  for (const field of READ_FIELDS) if (Object.hasOwn(value, field)) kept[field] = value[field];
  return kept;
}

/** A record that is a JSON object, as the line buffer keeps it (not copied). */
interface Entry {
  readonly line: RawLine;
  readonly value: JsonObject;
}

interface Boundary {
  entry?: Entry;
  summary?: Entry;
  turnsBefore: number;
  /** A compaction summary marked isSidechain that came after this boundary (not read as its summary). */
  sidechainSummary?: Entry;
  /** The main session before it, once the records up to its head are counted (see settleSessions). */
  mainSession?: string;
  /** Its checkpoint as last read, with the problems reading it gave and the records it was read from. */
  read?: { checkpoint: Checkpoint; problems: Problem[]; summary?: Entry; sidechainSummary?: Entry };
}

/**
 * What build() has read so far, kept between finishes so that lines appended are read in proportion to
 * themselves: the record loop resumes where it stopped, and a checkpoint is read again only when its boundary got
 * its summary (or a sub-agent's) since. Nothing else a checkpoint reads changes with later lines (stable history,
 * see the header): they add only uuids first seen after its last record, which it does not see, and turns after
 * its turnsBefore, which it cannot claim. So reading resumed this way gives what reading everything again gives.
 */
class ReadState {
  /** How many of the line buffer's records were read. */
  read = 0;
  /** Problems of the records read (not a JSON object, unknown type, no message, a summary with no boundary), in line order. */
  readonly problems: Problem[] = [];
  /** The records' uuids: each one's first record (later copies never replace it) and its turn. */
  readonly chain = new UuidChain();
  readonly turns: Turn[] = [];
  /**
   * The reply turn of each message.id since the last compaction, found through the turns' ids (no Map entry a
   * reply): a reply's id is its message.id, or, when that id was taken, the message.id kept in renamedReplies.
   */
  readonly replyOfMessage = new TurnKeyIndex((index) => this.renamedReplies.get(index) ?? this.turns[index].id);
  readonly renamedReplies = new Map<number, string>();
  readonly toolNameById = new Map<string, string>();
  /** The turns holding the results of each reply's tool calls (its tool_use blocks' ids), by turn index. */
  readonly resultTurns = new ResultTurnsOfCalls();
  readonly calls: CallLinks;
  /** The turns' ids, found through the turns themselves (no Set entry a turn): each id is a turn's. */
  readonly usedIds = new TurnKeyIndex((index) => this.turns[index].id);
  readonly boundaries: Boundary[] = [];
  readonly unknownTypes = new Set<string>();
  /** Messages per session in the records counted so far, and how many records were counted. */
  readonly sessions = new Map<string, number>();
  counted = 0;
  /** Boundaries whose main session is settled (they are settled in order: their heads are in line order). */
  settled = 0;
  /** boundaries[0, summarised) have their summaries (a boundary never loses its summary, nor gets another). */
  summarised = 0;
  /** turns[0, published) were returned by a finish: one is copied before it changes, never changed in place. */
  published = 0;
  /**
   * turns[0, handedOver) were given to the context's keepTurn (ReaderContext.keepTurn), each as the next turn began:
   * what it gave back is in their place, and one is copied before it changes.
   */
  handedOver = 0;
  readonly copied = new Set<number>();

  /** `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  constructor(keeper?: TextKeeper) {
    this.calls = new CallLinks(keeper);
  }

  /** A message.id never spans a compaction: a later record reusing one starts a new reply. */
  forgetMessages(): void {
    this.replyOfMessage.clear();
    this.renamedReplies.clear();
  }

  /**
   * The turn at `index`, ready to change: a plain copy put in its place when a finish already returned it or it
   * was handed over (a reply's records seldom come after the next turn began; its copy then stays in memory).
   */
  editable(index: number): Turn {
    if ((index < this.published || index < this.handedOver) && !this.copied.has(index)) {
      this.turns[index] = plainCopy(this.turns[index]);
      this.copied.add(index);
    }
    return this.turns[index];
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** No claimed turns. */
const NO_TURNS = new Int32Array(0);

function short(uuid: string): string {
  return uuid.length > 8 ? `${uuid.slice(0, 8)}…` : uuid;
}

/** The summary uuids a boundary's compactMetadata names (preservedSegment / preservedMessages anchorUuid). */
function anchorsOf(rec: JsonObject): string[] {
  const metadata = isObject(rec.compactMetadata) ? rec.compactMetadata : undefined;
  const out: string[] = [];
  for (const part of [metadata?.preservedSegment, metadata?.preservedMessages]) {
    const anchor = isObject(part) ? str(part.anchorUuid) : undefined;
    if (anchor !== undefined) out.push(anchor);
  }
  return out;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The summariser's raw output in an agent-acompact side file: its last assistant reply's text. */
function rawSummariserOutput(text: string): string | undefined {
  let lastId: string | undefined;
  let parts: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(rec) || rec.type !== 'assistant' || !isObject(rec.message)) continue;
    const id = str(rec.message.id) ?? str(rec.uuid) ?? '';
    if (id !== lastId) parts = [];
    lastId = id;
    parts.push(textOf(rec.message.content));
  }
  return lastId === undefined ? undefined : parts.join('');
}

export class ClaudeCodeReader extends RebuildingReader {
  readonly format = 'claude-code' as const;
  /** The records, read into the state as they come, a batch at a time (pushedRecords.ts). */
  private readonly records: PushedRecords;
  private readonly lines: JsonLinesBuffer;
  private state = new ReadState(this.context.textKeeper);

  /** `readAheadRecords`: how many pushed records wait before push() reads them (tests vary it). */
  constructor(context?: ReaderContext, readAheadRecords = READ_AHEAD_RECORDS) {
    super(context);
    this.records = new PushedRecords({ dropText: true, keep: readFields }, readAheadRecords);
    this.lines = this.records.lines;
  }

  push(line: RawLine): void {
    // Reading resumes where it stopped, and gives what reading the records all at once gives.
    if (this.records.push(line)) this.state = new ReadState(this.context.textKeeper);
    if (this.records.due(this.state.read)) this.readRecords(this.state);
  }

  protected stateKey(): string {
    return this.records.key();
  }

  /**
   * The first checkpoints, up to the first boundary still waiting for its summary (TranscriptReader's
   * settledCheckpoints). A boundary with its summary is read again only for a sub-agent's summary, which changes
   * its problems, not its checkpoint (see build); the turns it can claim are before it, and no later record
   * changes them: a message.id never spans a compaction, and uuids first seen later are past its horizon. The
   * records pushed so far are read first, so a summary is seen as soon as its line is pushed.
   */
  settledCheckpoints(): number {
    const state = this.state;
    if (this.records.lines.records.length > state.read) this.readRecords(state);
    const { boundaries } = state;
    while (state.summarised < boundaries.length && boundaries[state.summarised].summary !== undefined) state.summarised++;
    return state.summarised;
  }

  protected build(): Transcript {
    const state = this.state;
    this.readRecords(state);
    this.handOver(state);

    const checkpoints: Checkpoint[] = [];
    const checkpointProblems: Problem[] = [];
    state.boundaries.forEach((boundary, k) => {
      let read = boundary.read;
      if (read === undefined || read.summary !== boundary.summary || read.sidechainSummary !== boundary.sidechainSummary) {
        const claim = {
          chain: state.chain,
          resultTurns: state.resultTurns,
          mainSession: boundary.mainSession,
          horizon: Math.max(boundary.entry?.line.line ?? 0, boundary.summary?.line.line ?? 0),
        };
        const problems: Problem[] = [];
        let checkpoint = this.checkpointOf(boundary, k, state.turns, claim, problems);
        // A sub-agent's summary changes only what the problem says, so the checkpoint object stays the same.
        if (read !== undefined && read.summary === boundary.summary) checkpoint = read.checkpoint;
        read = { checkpoint, problems, summary: boundary.summary, sidechainSummary: boundary.sidechainSummary };
        boundary.read = read;
      }
      checkpoints.push(read.checkpoint);
      checkpointProblems.push(...read.problems);
    });

    const problems = [...this.lines.problems, ...state.problems, ...checkpointProblems];
    problems.sort((a, b) => a.line - b.line);
    state.published = state.turns.length;
    state.copied.clear();
    return { format: this.format, turns: state.turns.slice(), checkpoints, problems, lineCount: this.lines.lineCount };
  }

  /**
   * Reads the records pushed since the last build into `state`: turns, boundaries and their summaries, the uuids'
   * chain and the sessions' counts. A reader whose lines are pushed once each (ReaderContext.linesOnce, which
   * readOnce and keepTurn imply: no record is read again) then lets the records go: what they held is in the
   * turns, the chain and the boundaries (which keep their own records).
   */
  private readRecords(state: ReadState): void {
    const records = this.lines.records;
    const { problems, turns, chain, toolNameById, resultTurns, calls, usedIds } = state;
    const { boundaries, unknownTypes } = state;
    const from = state.read;
    state.read = records.length;

    for (let r = from; r < records.length; r++) {
      const { line, value } = records[r];
      // The first record of each uuid (later copies never replace it). A checkpoint sees only the uuids whose
      // first record is at or before its last record, so lines appended later cannot change its claim.
      if (isObject(value)) {
        const recordUuid = str(value.uuid);
        const isBoundary = value.type === 'system' && value.subtype === 'compact_boundary';
        if (recordUuid !== undefined) chain.addRecord(recordUuid, line.line, str(value.parentUuid), isBoundary);
      } else {
        problems.push({
          line: line.line,
          severity: 'error',
          message: `line ${line.line} is not a JSON object, so it is not a Claude Code record; it was skipped.`,
        });
        continue;
      }
      const entry = records[r] as Entry;
      const rec = value;
      const type = rec.type;
      if (type === 'system') {
        if (rec.subtype === 'compact_boundary') {
          boundaries.push({ entry, turnsBefore: turns.length });
          // A message.id never spans a compaction: a later record reusing one starts a new turn, so it cannot
          // change a turn that a checkpoint already judged.
          state.forgetMessages();
        }
        continue;
      }
      if (type !== 'user' && type !== 'assistant') {
        const name = typeof type === 'string' ? type : (JSON.stringify(type) ?? 'undefined');
        if (typeof type === 'string' && NOISE_TYPES.has(type)) continue;
        if (!unknownTypes.has(name)) {
          unknownTypes.add(name);
          problems.push({
            line: line.line,
            severity: 'info',
            message: `line ${line.line} has record type ${name}, which Compaction Lens does not read; records of this type were skipped.`,
          });
        }
        continue;
      }
      if (rec.isSidechain === true) {
        const last = boundaries[boundaries.length - 1];
        if (rec.isCompactSummary === true && last !== undefined && last.summary === undefined) last.sidechainSummary ??= entry;
        continue;
      }
      if (rec.isCompactSummary === true) {
        this.attachSummary(entry, boundaries, turns.length, problems);
        state.forgetMessages();
        continue;
      }
      if (rec.isMeta === true || rec.isVisibleInTranscriptOnly === true) continue;
      const message = rec.message;
      if (!isObject(message)) {
        problems.push({
          line: line.line,
          severity: 'warning',
          message: `line ${line.line} is a ${type} record without a "message" object; it was skipped.`,
        });
        continue;
      }
      const uuid = str(rec.uuid);
      if (type === 'assistant') {
        const messageId = str(message.id) ?? uuid ?? `line ${line.line}`;
        const text = textOf(message.content).trim();
        const reasoning = thinkingOf(message.content);
        const usage = isObject(message.usage) ? message.usage.output_tokens : undefined;
        const tokens = typeof usage === 'number' && Number.isFinite(usage) && usage > 0 ? usage : undefined;
        let at = state.replyOfMessage.get(messageId);
        if (at === undefined) {
          // A copy of a record read before a compaction adds nothing (its turn is already there).
          if (uuid !== undefined && chain.turnOf(uuid) !== undefined) continue;
          at = turns.length;
          const id = usedIds.has(messageId) ? `${messageId}@${line.line}` : messageId;
          this.handOver(state);
          turns.push({ id, role: 'assistant', text, span: lineSpan(line), label: 'reply', ...(reasoning !== '' ? { reasoning } : {}) });
          if (!usedIds.has(id)) usedIds.add(id, at);
          if (id !== messageId) state.renamedReplies.set(at, messageId);
          state.replyOfMessage.add(messageId, at);
        } else {
          const turn = state.editable(at);
          const fresh = !(uuid !== undefined && chain.turnOf(uuid) !== undefined);
          if (text !== '' && fresh) turn.text = turn.text === '' ? text : `${turn.text}\n${text}`;
          if (reasoning !== '' && fresh) turn.reasoning = turn.reasoning === undefined ? reasoning : `${turn.reasoning}\n${reasoning}`;
          turn.span = joinSpans(turn.span, lineSpan(line));
        }
        const turn = turns[at];
        if (tokens !== undefined && (turn.tokens === undefined || tokens > turn.tokens)) turn.tokens = tokens;
        for (const block of Array.isArray(message.content) ? message.content : []) {
          if (isObject(block) && block.type === 'tool_use' && typeof block.id === 'string') {
            resultTurns.addCall(at, block.id);
            if (typeof block.name === 'string') toolNameById.set(block.id, block.name);
          }
        }
        for (const call of callsOf(message)) calls.add(call.id, turn.id, call.text);
        const names = toolNames(message.content);
        if (names.length > 0) {
          const previous = turn.label === 'reply' ? [] : (turn.label ?? '').split(', ');
          turn.label = [...new Set([...previous, ...names])].join(', ');
        }
        if (uuid !== undefined && chain.turnOf(uuid) === undefined) chain.setTurn(uuid, at);
        continue;
      }
      // user: a prompt, or the results of tool calls
      if (uuid !== undefined && chain.turnOf(uuid) !== undefined) continue; // the same record written twice
      const content = message.content;
      const results = Array.isArray(content) ? content.filter((b) => isObject(b) && b.type === 'tool_result') : [];
      let id: string = uuid ?? `line ${line.line}`;
      if (usedIds.has(id)) id = `${id}@${line.line}`;
      this.handOver(state);
      const index = turns.length;
      if (results.length > 0) {
        const useIds = results.map((b) => (b as JsonObject).tool_use_id).filter((x): x is string => typeof x === 'string');
        for (const useId of useIds) resultTurns.addResult(index, useId);
        const names = [...new Set(useIds.map((u) => toolNameById.get(u)).filter((n): n is string => n !== undefined))];
        const turn: Turn = {
          id,
          role: 'tool',
          text: textOf(content).trim(),
          span: lineSpan(line),
          label: names.length > 0 ? `${names.join(', ')} result` : 'tool result',
        };
        const answers = calls.answersFor(useIds);
        if (answers !== undefined) turn.answers = answers;
        if (results.some((b) => (b as JsonObject).is_error === true)) turn.error = true;
        turns.push(turn);
      } else {
        turns.push({ id, role: 'user', text: textOf(content).trim(), span: lineSpan(line), label: 'prompt' });
      }
      if (!usedIds.has(id)) usedIds.add(id, index);
      if (uuid !== undefined) chain.setTurn(uuid, index);
    }
    this.settleSessions(state);
    if (this.records.letGo(this.context)) {
      state.read = 0;
      state.counted = 0;
    }
  }

  /**
   * Gives the turns read so far that were not yet given to the context's keepTurn (ReaderContext.keepTurn), and
   * keeps what it gives back in their place. Called as a new turn begins, and by build: a reply's records are
   * written one after another (a block each), so the turn before is done, or almost always is (see editable).
   */
  private handOver(state: ReadState): void {
    const keep = this.context.keepTurn;
    if (!keep) return;
    for (; state.handedOver < state.turns.length; state.handedOver++) {
      state.turns[state.handedOver] = keep(state.turns[state.handedOver]);
    }
  }

  // Each checkpoint's main session: the session with the most messages (sub-agent ones included) before its
  // boundary — not in the whole file, which would let later lines change it. A continued session that copied its
  // parent's compaction in has its own records (at least its sub-agent warmup) before the copied boundary.
  // Boundaries are made in the order of their heads (a compact_boundary record, or a summary with none before it),
  // so they are settled in order, each once the records before its head are counted.
  private settleSessions(state: ReadState): void {
    const { boundaries, sessions } = state;
    const records = this.lines.records;
    const headOf = (b: Boundary) => (b.entry ?? b.summary)!.line.line;
    const settle = (before: number) => {
      while (state.settled < boundaries.length && headOf(boundaries[state.settled]) <= before) {
        let main: string | undefined;
        for (const [session, count] of sessions) if (main === undefined || count > sessions.get(main)!) main = session;
        boundaries[state.settled++].mainSession = main;
      }
    };
    for (; state.counted < records.length; state.counted++) {
      const { line, value } = records[state.counted];
      if (!isObject(value)) continue;
      settle(line.line);
      const type = value.type;
      const session = str(value.sessionId);
      if ((type === 'user' || type === 'assistant') && session && value.isCompactSummary !== true) {
        sessions.set(session, (sessions.get(session) ?? 0) + 1);
      }
    }
    // Every head is a record counted above, so every boundary is settled here.
    settle(Infinity);
  }

  private attachSummary(entry: Entry, boundaries: Boundary[], turnsBefore: number, problems: Problem[]): void {
    const parent = str(entry.value.parentUuid);
    const uuid = str(entry.value.uuid);
    let target = boundaries.find(
      (b) =>
        b.summary === undefined &&
        b.entry !== undefined &&
        (str(b.entry.value.uuid) === parent || (uuid !== undefined && anchorsOf(b.entry.value).includes(uuid))),
    );
    if (target === undefined) {
      const last = boundaries[boundaries.length - 1];
      if (last !== undefined && last.summary === undefined) target = last;
    }
    if (target !== undefined) {
      target.summary = entry;
      return;
    }
    problems.push({
      line: entry.line.line,
      severity: 'warning',
      message: `line ${entry.line.line} is a compaction summary (isCompactSummary) with no compact_boundary record before it; it is shown as a checkpoint whose claimed turns are traced from its parentUuid.`,
    });
    boundaries.push({ summary: entry, turnsBefore });
  }

  private checkpointOf(
    boundary: Boundary,
    k: number,
    turns: Turn[],
    claim: {
      chain: UuidChain;
      resultTurns: ResultTurnsOfCalls;
      mainSession?: string;
      horizon: number;
    },
    problems: Problem[],
  ): Checkpoint {
    const visible = (u: string | undefined): u is string => u !== undefined && (claim.chain.lineOf(u) ?? Infinity) <= claim.horizon;
    const head = (boundary.entry ?? boundary.summary)!;
    const n = head.line.line;
    const rec = boundary.entry?.value ?? {};
    const uuid = str(rec.uuid) ?? str(boundary.summary?.value.uuid);
    const summaryId = uuid !== undefined ? uuid.slice(0, 8) : `compaction ${k + 1}`;
    const summaryMessage = boundary.summary && isObject(boundary.summary.value.message) ? boundary.summary.value.message : undefined;
    const summary = summaryMessage ? textOf(summaryMessage.content) : '';
    let span: SourceSpan = lineSpan(head.line);
    if (boundary.entry && boundary.summary) span = joinSpans(lineSpan(boundary.entry.line), lineSpan(boundary.summary.line));
    const notes: string[] = [];
    if (boundary.entry && !boundary.summary) {
      const side = boundary.sidechainSummary;
      problems.push({
        line: n,
        severity: 'warning',
        message:
          side !== undefined
            ? `line ${n}: compact_boundary ${summaryId} has no summary record of this session after it: the compaction summary at line ${side.line.line} is marked isSidechain (a sub-agent's record), so it was not read as this compaction's summary.`
            : `line ${n}: compact_boundary ${summaryId} has no summary record (isCompactSummary) after it. If the agent is still writing, it will appear on the next read.`,
      });
    }

    const metadata = isObject(rec.compactMetadata) ? rec.compactMetadata : {};
    const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
    const preTokens = count(metadata.preTokens);
    const postTokens = count(metadata.postTokens);
    const trigger = str(metadata.trigger);
    if (preTokens !== undefined) notes.push(`preTokens ${groupDigits(preTokens)} (recorded by Claude Code)`);
    if (trigger !== undefined) notes.push(`trigger: ${trigger}`);
    const durationMs = count(metadata.durationMs);
    if (durationMs !== undefined) notes.push(`the compaction took ${(durationMs / 1000).toFixed(1)} s (durationMs)`);
    const dropped = count(metadata.cumulativeDroppedTokens);
    if (dropped !== undefined)
      notes.push(
        `cumulativeDroppedTokens ${groupDigits(dropped)} (tokens dropped by this session's compactions so far, recorded by Claude Code)`,
      );
    const tools = Array.isArray(metadata.preCompactDiscoveredTools)
      ? metadata.preCompactDiscoveredTools.filter((x) => typeof x === 'string')
      : [];
    if (tools.length > 0)
      notes.push(`${tools.length} tool${tools.length === 1 ? '' : 's'} discovered before the compaction (preCompactDiscoveredTools)`);

    // Where the walk starts: the boundary's logicalParentUuid, or (for a summary alone) its parentUuid.
    const pointer = boundary.entry ? str(rec.logicalParentUuid) : str(boundary.summary?.value.parentUuid);
    const pointerName = boundary.entry ? 'logicalParentUuid' : 'parentUuid';
    const session = str(rec.sessionId) ?? str(boundary.summary?.value.sessionId);
    const fromParentSession = session !== undefined && claim.mainSession !== undefined && session !== claim.mainSession;
    let claimed: Int32Array = NO_TURNS;
    let unverifiable: string | undefined;
    if (visible(pointer)) {
      claimed = this.walk(pointer, claim, boundary.turnsBefore);
    } else if (fromParentSession) {
      const missing = pointer !== undefined ? ` (its ${pointerName} ${short(pointer)} is not here)` : '';
      problems.push({
        line: n,
        severity: 'warning',
        message: `line ${n}: compaction ${summaryId} belongs to the parent session ${session}, not to this file's session ${claim.mainSession}: the turns it summarised are in the parent session's file${missing}. Its summary is shown, but no turn here can be checked against it; open ${session}.jsonl to check them.`,
      });
      notes.push(`covered turns are in the parent session ${session} (not in this file): nothing here is claimed`);
      unverifiable = `the summarised turns are in the parent session ${session}'s file, not in this one`;
    } else {
      const leaf = claim.chain.lastMessageBefore(n, boundary.turnsBefore);
      const why = pointer !== undefined ? `its ${pointerName} ${pointer} is not in this file` : `it has no ${pointerName}`;
      if (leaf !== undefined) {
        claimed = this.walk(leaf.uuid, claim, boundary.turnsBefore);
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: compaction ${summaryId} cannot be traced exactly: ${why}. Its claimed turns (${claimed.length}) were inferred by walking back from the last message before it (line ${leaf.line}); if the session was rewound or edited there, the claim may be wrong.`,
        });
        notes.push(
          `${pointerName} ${pointer !== undefined ? short(pointer) : '(none)'} is not in this file: claimed turns inferred from the last message before the boundary (line ${leaf.line})`,
        );
      } else {
        problems.push({
          line: n,
          severity: 'warning',
          message: `line ${n}: compaction ${summaryId} cannot be traced: ${why}, and no message precedes it in this file. Its summary is shown with nothing claimed.`,
        });
        notes.push(`${pointerName} is not in this file and no message precedes the boundary: nothing is claimed`);
      }
    }

    if (visible(pointer) && claimed.length === 0) {
      problems.push({
        line: n,
        severity: 'info',
        message: `line ${n}: compaction ${summaryId}: the parentUuid chain from its ${pointerName} ${short(pointer)} reaches no turn of this session (only bookkeeping or sub-agent records), so it claims nothing.`,
      });
      notes.push(`the chain from ${pointerName} ${short(pointer)} holds no turn of this session: nothing is claimed`);
    }

    // Messages kept verbatim after the summary are not claimed.
    const preserved = new Set<number>();
    const hasPreserved = isObject(metadata.preservedSegment) || metadata.preservedMessages !== undefined;
    if (isObject(metadata.preservedSegment)) {
      const headUuid = str(metadata.preservedSegment.headUuid);
      const tailUuid = str(metadata.preservedSegment.tailUuid);
      if (tailUuid !== undefined) {
        claim.chain.walkBack(
          tailUuid,
          ({ turn, line, isUntil }) => {
            if (line > claim.horizon) return false;
            if (turn !== undefined) preserved.add(turn);
            return !isUntil;
          },
          headUuid,
        );
      }
    }
    const kept = metadata.preservedMessages;
    const keptList = Array.isArray(kept)
      ? kept
      : isObject(kept)
        ? [...(Array.isArray(kept.uuids) ? kept.uuids : []), ...(Array.isArray(kept.allUuids) ? kept.allUuids : [])]
        : undefined;
    if (keptList !== undefined) {
      let absent = 0;
      const seenKept = new Set<string>();
      for (const p of keptList) {
        const u = typeof p === 'string' ? p : isObject(p) ? str(p.uuid) : undefined;
        if (u === undefined || seenKept.has(u)) continue;
        seenKept.add(u);
        const t = visible(u) ? claim.chain.turnOf(u) : undefined;
        if (t !== undefined) preserved.add(t);
        else if (!visible(u)) absent++;
      }
      if (absent > 0) notes.push(`${absent} of the ${seenKept.size} preservedMessages uuids are not in this file`);
    } else if (typeof metadata.preservedMessages === 'number') {
      notes.push(`${metadata.preservedMessages} messages were preserved verbatim (count only: they could not be excluded from the claim)`);
    }
    const claimedIds: TurnId[] = [];
    let removed = 0;
    for (let k = 0; k < claimed.length; k++) {
      if (preserved.has(claimed[k])) removed++;
      else claimedIds.push(turns[claimed[k]].id);
    }
    if (removed > 0)
      notes.push(
        `${removed} turn${removed === 1 ? '' : 's'} kept verbatim after the summary (preserved) ${removed === 1 ? 'is' : 'are'} not claimed`,
      );

    const checkpoint: Checkpoint = { summaryId, summary, claimedIds, span, turnsBefore: boundary.turnsBefore, notes };
    if (preTokens !== undefined) checkpoint.recordedPrefixTokens = preTokens;
    // postTokens measures the conversation right after the compaction: the summary (with what Claude Code attaches
    // to it), plus the preserved messages when some were kept.
    if (postTokens !== undefined && !hasPreserved) {
      checkpoint.recordedSummaryTokens = postTokens;
      notes.push(
        `postTokens ${groupDigits(postTokens)} (the conversation right after the compaction, recorded by Claude Code): taken as the summary's size`,
      );
    } else if (metadata.postTokens === 0) {
      notes.push('postTokens 0 recorded: not a usable size, the summary is counted');
    } else if (postTokens !== undefined) {
      notes.push(
        `postTokens ${groupDigits(postTokens)} (the conversation right after the compaction, recorded by Claude Code): includes the preserved messages, so the summary's size is counted instead`,
      );
    }
    if (unverifiable !== undefined) checkpoint.unverifiable = unverifiable;
    if (this.context.defaultBudget !== undefined) {
      checkpoint.summaryBudget = this.context.defaultBudget;
      checkpoint.budgetAssumed = true;
    }
    checkpoint.truncationHints = this.hintsFor(summary, trigger, notes);
    // Handed back unchanged by later builds (see build): sealed, so the checkpoint memo tells it by identity.
    return sealRecord(checkpoint);
  }

  /**
   * Turn indexes (before `limit`) on the parentUuid chain from `start` back to the previous boundary, and the tool
   * results answering those turns' calls (joined as they were read: ResultTurnsOfCalls): ascending, each once. Each
   * is marked in a byte per turn before `limit` and the marks read in order, not gathered and sorted (the results
   * after the walk's descending turns made a sort of some 150,000 integers at 100k turns; docs/performance-history.md, "A
   * Claude Code claim joined as read; the read's last step a block of its own").
   */
  private walk(
    start: string,
    claim: {
      chain: UuidChain;
      resultTurns: ResultTurnsOfCalls;
      horizon: number;
    },
    limit: number,
  ): Int32Array {
    const marked = new Uint8Array(limit);
    let count = 0;
    // The marks are read from the lowest: a claim reaches back only to the previous boundary.
    let lowest = limit;
    /** Marks `turn` when it is before `limit`; true when it was not marked yet. */
    const mark = (turn: number): boolean => {
      if (turn >= limit || marked[turn] === 1) return false;
      marked[turn] = 1;
      count++;
      if (turn < lowest) lowest = turn;
      return true;
    };
    const onChain: number[] = [];
    claim.chain.walkBack(start, ({ turn, line, boundary }) => {
      if (line > claim.horizon || boundary) return false;
      if (turn !== undefined && mark(turn)) onChain.push(turn);
      return true;
    });
    // Parallel tool calls: their results are siblings of the chain, not on it. Only the walked turns' calls.
    for (const turn of onChain) claim.resultTurns.forEachResultOf(turn, mark);
    const claimed = new Int32Array(count);
    let at = 0;
    for (let turn = lowest; at < count; turn++) if (marked[turn] === 1) claimed[at++] = turn;
    return claimed;
  }

  private hintsFor(summary: string, trigger: string | undefined, notes: string[]): TruncationHints {
    const hints: TruncationHints = {};
    // Claude Code appends "Please continue the conversation…" to automatic compactions only.
    if (trigger === 'auto') hints.expectedClosings = [CLAUDE_CODE_CLOSING];
    if (NINE_SECTIONS.test(summary)) hints.expectedLastSection = 9;
    const side = this.matchingSideFile(summary);
    if (side !== undefined) {
      const open = side.raw.lastIndexOf('<summary>');
      const close = side.raw.lastIndexOf('</summary>');
      hints.rawClosingMarker = '</summary>';
      hints.rawOutputClosed = close !== -1 && close > open;
      notes.push(
        hints.rawOutputClosed
          ? `raw summariser output (${fileNameOf(side.path)}) ends with its closing </summary>`
          : `raw summariser output (${fileNameOf(side.path)}) has no closing </summary>: the summariser's output was cut`,
      );
    }
    return hints;
  }

  /** The acompact side file whose raw <summary> output is this summary, if one was given. */
  private matchingSideFile(summary: string): { path: string; raw: string } | undefined {
    const target = collapse(summary);
    if (target === '') return undefined;
    for (const file of this.context.sideFiles ?? []) {
      if (!/agent-acompact-/.test(fileNameOf(file.path))) continue;
      const raw = rawSummariserOutput(file.text);
      if (raw === undefined) continue;
      const open = raw.indexOf('<summary>');
      const body = open === -1 ? raw.replace(/<\/?analysis>/g, '') : raw.slice(open + '<summary>'.length);
      const key = collapse(body.replace(/<\/summary>[\s\S]*$/, '')).slice(0, 200);
      if (key.length >= 20 && target.includes(key)) return { path: file.path, raw };
    }
    return undefined;
  }
}

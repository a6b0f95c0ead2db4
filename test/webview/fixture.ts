// Transcripts for the webview tests, analysed for real (src/core/analyze.ts), and a fake host that answers the
// webview from them exactly as the extension's timeline panel does: init / updated through timelineData's
// fileInfo and checkpointHeaders, every request through src/view/requests.ts's handlers. Each dataset is a
// transcript whose analysis gives the statuses a test needs: a turn is covered because the summary names its
// path or anchor, claimed-missing because it does not, nothing-to-check because it is an acknowledgement,
// unverifiable because the summary is encrypted (or the turns are in another file), uncovered because the
// pointer set does not claim it.

import { analyze } from '../../src/core/analyze';
import type { Analysis, Checkpoint, FormatId, Problem, Role, TokenCache, Transcript, Turn, TurnId } from '../../src/core/model';
import { createTokenCounter } from '../../src/node/tokenCounter';
import type { CheckpointHeader, FileInfo, HostMessage, ViewState, WebviewMessage } from '../../src/protocol';
import { validateViewState } from '../../src/view/messageValidation';
import { answerWith, boundsOf, requestHandlers, type AnalysedData } from '../../src/view/requests';
import { checkpointHeaders, fileInfo, firstRows, timelineRows } from '../../src/view/timelineData';

/**
 * Token counts are the extension's own (tiktoken's o200k_base, src/node/tokenCounter.ts), so prefixes read
 * "counted with the tokenizer" for the same figures the host would show; one cache serves every dataset.
 */
const countTokens = createTokenCounter();
const tokenCache: TokenCache = new Map();

/** A transcript to show, with the name of the file it is said to come from. */
export interface FixtureSpec {
  name: string;
  transcript: Transcript;
}

/** A transcript and its analysis: what the extension's store holds for an open timeline. */
export class FixtureDataset implements AnalysedData {
  readonly transcript: Transcript;
  readonly analysis: Analysis;
  readonly path: string;

  constructor(spec: FixtureSpec) {
    this.transcript = spec.transcript;
    this.path = `/fixtures/${spec.name}.jsonl`;
    this.analysis = analyze(spec.transcript, { countTokens, tokenCache });
  }

  get file(): FileInfo {
    return fileInfo(this.path, this.transcript);
  }

  headers(): CheckpointHeader[] {
    return checkpointHeaders(this.transcript, this.analysis);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Building transcripts

interface TurnSpec {
  id: TurnId;
  /** A role no reader produces is cast: the webview must still draw it as text. */
  role: Role | string;
  text: string;
  label?: string;
  /** Recorded by the agent; counted otherwise. */
  tokens?: number;
  /** The canonical format's anchor_token. */
  anchor?: string;
  /** Index of the earlier turn whose call this tool result answers (its text becomes the call text). */
  answers?: number;
}

interface CheckpointSpec extends Omit<Checkpoint, 'span' | 'turnsBefore' | 'claimedIds'> {
  /** Number of turns before the checkpoint record. */
  after: number;
  /** Indexes of the turns its pointer set claims. */
  claims: number[];
}

/**
 * A transcript as a reader gives it: turns and checkpoint records on the lines they would take in the file,
 * in log order, each tool result carrying the text of the call it answers.
 */
function transcriptOf(format: FormatId, turns: TurnSpec[], checkpoints: CheckpointSpec[], problems: Problem[] = []): Transcript {
  let line = 0;
  const span = () => {
    line++;
    return { startLine: line, endLine: line, startOffset: (line - 1) * 200, endOffset: line * 200 - 1 };
  };
  const built: Turn[] = [];
  const records: Checkpoint[] = [];
  const pending = [...checkpoints].sort((a, b) => a.after - b.after);
  const flush = (count: number) => {
    while (pending.length > 0 && pending[0].after === count) {
      const { after, claims, ...rest } = pending.shift()!;
      records.push({ ...rest, claimedIds: claims.map((index) => built[index].id), turnsBefore: after, span: span() });
    }
  };
  for (const spec of turns) {
    flush(built.length);
    const turn: Turn = { id: spec.id, role: spec.role as Role, text: spec.text, span: span() };
    if (spec.label !== undefined) turn.label = spec.label;
    if (spec.tokens !== undefined) turn.tokens = spec.tokens;
    if (spec.anchor !== undefined) turn.anchor = spec.anchor;
    const call = spec.answers === undefined ? undefined : built[spec.answers];
    if (call && call.text.includes('[tool call ')) turn.answers = { turnId: call.id, callText: call.text };
    built.push(turn);
  }
  flush(built.length);
  return { format, turns: built, checkpoints: records, problems, lineCount: line };
}

function range(from: number, toExclusive: number): number[] {
  return Array.from({ length: Math.max(0, toExclusive - from) }, (_, i) => from + i);
}

/** The file a turn is about: every ordinary turn names its own, so the summary covers it by naming it. */
export function pathOf(index: number): string {
  return `src/session/mod${index}.ts`;
}

function editCall(index: number): string {
  const args = { file_path: pathOf(index), old_string: `EXPIRY_${index} = 60`, new_string: `EXPIRY_${index} = config.expiry` };
  return `[tool call Edit] ${JSON.stringify(args)}`;
}

/**
 * A working session in fours: the user asks about a file, the assistant edits the next one, the edit's result
 * (answering that call, with some code and an error code), and the assistant's finding.
 */
function ordinaryTurn(index: number): TurnSpec {
  const path = pathOf(index);
  switch (index % 4) {
    case 0:
      return { id: index, role: 'user', text: `Please look at ${path} and tell me why the refresh token expires early.` };
    case 1:
      return { id: index, role: 'assistant', text: `I'll fix ${path} first, then check the expiry constant.\n${editCall(index + 1)}` };
    case 2:
      return {
        id: index,
        role: 'tool',
        label: 'Edit',
        answers: index - 1,
        text: [
          `Edited ${path}`,
          `export const EXPIRY_${index} = config.expiry; // seconds`,
          `export function isFresh${index}(session: Session): boolean {`,
          "  if (session.revoked) throw new SessionError('session revoked', { cause: session.id });",
          '  const age = Date.now() - session.issuedAt;',
          '  log.debug(`session ${session.id} is ${age} ms old`);',
          `  return age < EXPIRY_${index} * 1000; // was 60 s before the fix`,
          '}',
          `error E${1000 + index}: token rejected by the gateway after the refresh`,
        ].join('\n'),
      };
    default:
      return { id: index, role: 'assistant', text: `Found it: ${path} sets EXPIRY_${index} too low; the fix is to read it from config.` };
  }
}

/** A summary that names the files of `covered` turns; cut off mid-clause when `truncated`. */
function summaryNaming(covered: number[], truncated: boolean): string {
  return (
    '1. Primary request: fix the session handling (the refresh token expires early).\n' +
    `2. Files touched: ${covered.map(pathOf).join(', ')}.\n` +
    (truncated ? '3. Next step: the user asked to' : '3. Next step: run the session tests. Please continue from here.')
  );
}

const INCIDENT_BEFORE = 420;
const INCIDENT_COVERED = 380;

/** The incident's checkpoint: claims turns 0–419, its summary names the files of 0–379 and stops mid-clause. */
function incidentCheckpoint(): CheckpointSpec {
  return {
    summaryId: 'S1-compact-0419',
    summary: summaryNaming(range(0, INCIDENT_COVERED), true),
    summaryBudget: 4096,
    budgetAssumed: true,
    after: INCIDENT_BEFORE,
    claims: range(0, INCIDENT_BEFORE),
  };
}

/** What the canonical reader says of a checkpoint without a budget when the default is assumed. */
function assumedBudgetWarning(line: number): Problem {
  return {
    line,
    severity: 'warning',
    message: `checkpoint S1-compact-0419 on line ${line} has no "summary_budget": the default 4096 is assumed. Record the budget the summariser was given.`,
  };
}

/**
 * The design note's incident: 420 turns before the checkpoint, whose summary names the first 380 and is cut
 * off; the prefix (counted) is over the ceiling of the assumed 4,096-token budget, so the verdict is
 * fail-closed with 40 claimed-missing turns (380–419). `turnsAfter` turns follow the checkpoint.
 */
export function incidentSpec(turnsAfter = 6): FixtureSpec {
  const turns = range(0, INCIDENT_BEFORE + turnsAfter).map(ordinaryTurn);
  return {
    name: 'incident',
    transcript: transcriptOf('canonical', turns, [incidentCheckpoint()], [assumedBudgetWarning(INCIDENT_BEFORE + 1)]),
  };
}

/** Two checkpoints: S1 after turn 99 claims 0–89 and names them all (reversible); S2 is the incident's. */
export function twoCheckpointSpec(): FixtureSpec {
  const turns = range(0, 426).map(ordinaryTurn);
  const early: CheckpointSpec = {
    summaryId: 'S1-early',
    summary: summaryNaming(range(0, 90), false),
    summaryBudget: 4096,
    after: 100,
    claims: range(0, 90),
  };
  return { name: 'two-checkpoints', transcript: transcriptOf('canonical', turns, [early, incidentCheckpoint()]) };
}

export const LARGE_TURNS = 100_000;
export const LARGE_BEFORE = 99_000;

let large: FixtureSpec | undefined;

/**
 * A large transcript: 100,000 turns (token counts recorded, as agents do), a checkpoint after turn 98,999
 * whose summariser reported the turns it consumed (Path A): every 11th turn is not claimed (uncovered), every
 * 37th claimed turn was not reported (claimed-missing). Built once: the tests only read it.
 */
export function largeSpec(): FixtureSpec {
  if (large) return large;
  const turns = range(0, LARGE_TURNS).map((index) => ({ ...ordinaryTurn(index), tokens: 40 + (index % 13) * 17 }));
  const claims = range(0, LARGE_BEFORE).filter((index) => index % 11 !== 10);
  const checkpoint: CheckpointSpec = {
    summaryId: 'S1-large',
    summary: 'The session fixed the refresh token expiry across the session modules. Please continue from here.',
    summaryBudget: 20_000,
    after: LARGE_BEFORE,
    claims,
    reportedIds: claims.filter((index) => index % 37 !== 36),
  };
  large = { name: 'large', transcript: transcriptOf('canonical', turns, [checkpoint]) };
  return large;
}

/**
 * Every status: S1 after turn 23 claims 0–17 and names the files of 0–9 (covered); 10–13 are
 * acknowledgements (nothing to check); 14–17 are not named (claimed-missing); 18–23 are not claimed
 * (uncovered). S2 after turn 27 has an encrypted summary, so every turn it claims is unverifiable.
 */
export function everyStatusSpec(): FixtureSpec {
  const turns = range(0, 30).map((index) =>
    index >= 10 && index <= 13 ? { id: index, role: index % 2 ? 'assistant' : 'user', text: 'OK.' } : ordinaryTurn(index),
  );
  return {
    name: 'every-status',
    transcript: transcriptOf('canonical', turns, [
      { summaryId: 'S1-mixed', summary: summaryNaming(range(0, 10), false), summaryBudget: 4096, after: 24, claims: range(0, 18) },
      {
        summaryId: 'S2-encrypted',
        summary: 'gAAAAABn2x8k-encrypted-compaction-summary==',
        opaque: true,
        summaryBudget: 20_000,
        budgetAssumed: true,
        after: 28,
        claims: range(0, 28),
      },
    ]),
  };
}

/** Five turns and no compaction: the list shows them, and nothing waits for a summary. */
export function noCompactionSpec(): FixtureSpec {
  return { name: 'no-compaction', transcript: transcriptOf('canonical', range(0, 5).map(ordinaryTurn), []) };
}

/** The context the agents recorded at compaction in the Codex-like and Claude-like transcripts. */
export const CODEX_RECORDED = 212_134;
export const CLAUDE_RECORDED = 167_094;

/**
 * A Codex-like checkpoint, as the Codex reader gives it: an encrypted summary (every claimed turn
 * unverifiable, fail-closed), the prefix counted well within the ceiling of the assumed 20,000-token budget,
 * and the agent's recorded context (212,134) much larger, with the notes saying where it was read.
 */
export function codexLikeSpec(): FixtureSpec {
  const turns = range(0, 426).map(ordinaryTurn);
  return {
    name: 'codex-like',
    transcript: transcriptOf('codex', turns, [
      {
        summaryId: 'compaction-421',
        summary: 'gAAAAABn2x8k-encrypted-compaction-summary==',
        opaque: true,
        summaryBudget: 20_000,
        budgetAssumed: true,
        recordedPrefixTokens: CODEX_RECORDED,
        after: INCIDENT_BEFORE,
        claims: range(0, INCIDENT_BEFORE),
        notes: [
          'summary is encrypted (remote compaction): coverage cannot be verified',
          'recorded prefix: last_token_usage.total_tokens 212,134 of the token_count at line 420, model_context_window 258,400',
          'its context_compacted event is at line 421',
        ],
      },
    ]),
  };
}

/**
 * A Claude-Code-like checkpoint, as that reader gives it: the incident's turns, the tool results with their
 * recorded token counts (so the prefix is partly counted) over the ceiling of the assumed 20,000-token budget,
 * a summary cut off mid-clause whose raw summariser output has no closing </summary>, preTokens and the
 * trigger as notes.
 */
export function claudeLikeSpec(): FixtureSpec {
  const turns = range(0, 426).map((index) => {
    const turn = ordinaryTurn(index);
    return turn.role === 'tool' ? { ...turn, tokens: 1_000 + (index % 13) * 17 } : turn;
  });
  return {
    name: 'claude-like',
    transcript: transcriptOf('claude-code', turns, [
      {
        ...incidentCheckpoint(),
        summaryId: 'b1c2-compact',
        summaryBudget: 20_000,
        recordedPrefixTokens: CLAUDE_RECORDED,
        truncationHints: { rawOutputClosed: false, rawClosingMarker: '</summary>' },
        notes: ['preTokens 167,094 (recorded by Claude Code)', 'trigger: auto'],
      },
    ]),
  };
}

/** Turns and a summary whose text is hostile HTML/JS: it must show up as literal text and run nothing. */
export const HOSTILE = {
  img: '<img src=x onerror="window.__pwned=\'img\'">',
  script: "<script>window.__pwned='script'</script>",
  link: '<a href="javascript:window.__pwned=\'link\'">click me</a>',
  svg: '<svg onload="window.__pwned=\'svg\'"></svg>',
  style: '<style>body{display:none}</style><b style="color:red">bold</b>',
};

/**
 * Twelve hostile turns (a hostile id, role, label, text and anchors). S1 after turn 9 claims 0–9 and its
 * summary carries the anchors of 0–5; S2 after turn 11 cannot be checked, for a hostile reason.
 */
export function hostileSpec(): FixtureSpec {
  const hostile = Object.values(HOSTILE);
  const anchorOf = (index: number) => `${index % 2 === 0 ? HOSTILE.img : HOSTILE.script}#${index}`;
  const turns = range(0, 12).map((index): TurnSpec => ({
    id: index === 3 ? '<b>id</b>' : index,
    role: index % 2 === 0 ? 'user' : '<i>assistant</i>',
    label: index === 1 ? HOSTILE.img : undefined,
    text: `turn ${index}: ${hostile[index % hostile.length]} and ${HOSTILE.link}`,
    anchor: anchorOf(index),
  }));
  return {
    name: '<img src=x onerror=alert(1)>',
    transcript: transcriptOf('canonical', turns, [
      {
        summaryId: '<script>alert(1)</script>',
        summary: `Carried: ${range(0, 6).map(anchorOf).join(' ; ')}\nNext: the user asked to`,
        summaryBudget: 100,
        after: 10,
        claims: range(0, 10),
        notes: [HOSTILE.link],
      },
      {
        summaryId: 'S2',
        summary: `Carried: ${HOSTILE.svg}`,
        summaryBudget: 100,
        unverifiable: `the summarised turns are in another file, ${HOSTILE.img}`,
        after: 12,
        claims: range(0, 12),
      },
    ]),
  };
}

/**
 * Transcript text that tries visual trickery: a right-to-left override left open (`1\u202E 99-05` reads
 * "1 50-99", `src/\u202Etxt.exe` reads "src/exe.txt"), zero-width and invisible characters, tag characters
 * spelling hidden text, an emoji joined by zero width joiners (legitimate: kept), and a 4,000-character word.
 */
export const TRICKY = {
  date: '1\u202E 99-05',
  anchor: 'src/\u202Etxt.exe',
  zeroWidth: 'pass\u200Bword\u200C\u2060\uFEFFok\u00ADay',
  tags: 'see \u{E0068}\u{E0069} here',
  family: '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
  long: 'Q'.repeat(4000),
};

/**
 * Eight turns, each with its anchor; turn 1 (id `1\u202E 99-05`) is the tricky one, turn 2 the long word.
 * S1 (named `1\u202E 99-05`) after turn 5 claims 0–4 and carries the anchors of 0–2, and is cut off; S2
 * after turn 7 cannot be checked, for a reason that names the tricky turn and the long word.
 */
export function trickySpec(): FixtureSpec {
  const turns = range(0, 8).map((index): TurnSpec => {
    if (index === 1) {
      return {
        id: TRICKY.date,
        role: 'assistant',
        label: `Read\u200B`,
        text: `the date ${TRICKY.date} and ${TRICKY.anchor}; ${TRICKY.zeroWidth}; ${TRICKY.tags}; ${TRICKY.family} family`,
        anchor: TRICKY.anchor,
      };
    }
    if (index === 2) return { id: 2, role: '\u202Etool', label: TRICKY.long, text: `long ${TRICKY.long} end`, anchor: TRICKY.long };
    return { id: index, role: index % 2 ? 'assistant' : 'user', text: `turn ${index} edits src/t${index}.ts`, anchor: `src/t${index}.ts` };
  });
  return {
    name: 'report\u202Etxt.exe',
    transcript: transcriptOf('canonical', turns, [
      {
        summaryId: TRICKY.date,
        summary: `Carried: src/t0.ts, ${TRICKY.anchor}, ${TRICKY.long} and then the user asked to`,
        summaryBudget: 100,
        after: 6,
        claims: range(0, 5),
        notes: [`a note with ${TRICKY.zeroWidth}`],
      },
      {
        summaryId: 'S2',
        summary: 'Carried: everything before.',
        summaryBudget: 100,
        unverifiable: `turn ${TRICKY.date} and those before it are in the parent session (${TRICKY.long})`,
        after: 8,
        claims: range(0, 8),
      },
    ]),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The fake host

/**
 * What the fake host recorded and how it answers; `respond` sends a message into the page. It answers as
 * src/extension/timelinePanel.ts does: init and updated from timelineData, every request through
 * src/view/requests.ts's handlers (validation, the stale check and the error replies included).
 */
export class FakeHost {
  readonly received: WebviewMessage[] = [];
  /** Every answer to a request, in order (replies and errors). */
  readonly answers: HostMessage[] = [];
  /** The problems sent with init, instead of the analysis's when set. */
  problems: Problem[] | undefined;
  restore: ViewState | undefined;
  /** When set, getRows for this start fails with an error answer. */
  failRowsAt: number | undefined;
  /** The analysis version sent with init / updated; requests asked against another are answered as stale. */
  version = 0;
  /** Bounds to check requests against instead of the dataset's (to make a valid-looking request invalid). */
  boundsOverride: { checkpointCount: number; turnCount: number } | undefined;
  /** Whether init (and updated with new checkpoints) carries the rows of the view, as the panel's does (off: every row is asked for). */
  sendsFirstRows = true;

  constructor(
    public dataset: FixtureDataset,
    private readonly respond: (message: HostMessage) => void,
  ) {}

  handle(message: WebviewMessage): void {
    this.received.push(message);
    const data = this.dataset;
    if (message.type === 'getRows' && message.start === this.failRowsAt) {
      this.answer({ type: 'error', requestId: message.requestId, reason: 'failed', message: 'the transcript changed while reading' });
      return;
    }
    const bounds = this.boundsOverride ?? boundsOf(data);
    const answer = answerWith(message, requestHandlers, data, bounds, { file: data.path, version: this.version });
    if (answer) {
      this.answer(answer);
      return;
    }
    if (message.type === 'ready') {
      const headers = data.headers();
      const restore = this.restore ? validateViewState(this.restore, data.path, bounds) : undefined;
      // As the panel does: the rows the timeline opens on (in the view it restores, if any) come along.
      const rows = this.sendsFirstRows ? firstRows(data.transcript, data.analysis, headers, restore) : undefined;
      this.respond({
        type: 'init',
        file: data.file,
        checkpoints: headers,
        problems: this.problems ?? data.analysis.problems,
        version: this.version,
        ...(restore ? { restore } : {}),
        ...(rows ? { rows } : {}),
      });
    }
  }

  /**
   * Sends `updated` with the current dataset (swap `dataset` first to simulate a grown transcript); with
   * `sameCheckpoints`, without its checkpoints, as the panel does when an append changed none; with `tailFrom`
   * too, the rows from there to the end ride along (`tail`), as the panel sends the rows an append changed.
   */
  sendUpdated(options: { sameCheckpoints?: boolean; tailFrom?: number } = {}): void {
    this.version++;
    const data = this.dataset;
    const { tailFrom } = options;
    const turnCount = data.transcript.turns.length;
    const checkpointIndex = data.analysis.checkpoints.length > 0 ? 0 : -1;
    const headers = data.headers();
    // As the panel does: with new checkpoints, the rows of the view last reported come along.
    const reported = this.ofType('viewState').at(-1)?.state;
    const view = reported ? validateViewState(reported, data.path, this.boundsOverride ?? boundsOf(data)) : undefined;
    const rows = !options.sameCheckpoints && this.sendsFirstRows ? firstRows(data.transcript, data.analysis, headers, view) : undefined;
    this.respond({
      type: 'updated',
      file: data.file,
      checkpoints: options.sameCheckpoints ? [] : headers,
      problems: data.analysis.problems,
      version: this.version,
      ...(options.sameCheckpoints ? { sameCheckpoints: true } : {}),
      ...(tailFrom !== undefined
        ? { tail: { start: tailFrom, rows: timelineRows(data.transcript, data.analysis, checkpointIndex, tailFrom, turnCount - tailFrom) } }
        : {}),
      ...(rows ? { rows } : {}),
    });
  }

  ofType<T extends WebviewMessage['type']>(type: T): Extract<WebviewMessage, { type: T }>[] {
    return this.received.filter((message): message is Extract<WebviewMessage, { type: T }> => message.type === type);
  }

  private answer(message: HostMessage): void {
    this.answers.push(message);
    this.respond(message);
  }
}

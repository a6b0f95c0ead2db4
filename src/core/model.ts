// The model every part of Compaction Lens speaks: transcripts (what the readers produce), the analysis
// (what core/analyze returns), and the options that steer it. Types only; no behaviour lives here.

/** A turn id as the transcript spells it (canonical ids are integers or strings). */
export type TurnId = number | string;

export type Role = 'user' | 'assistant' | 'tool' | 'system';
/** Every role, in the order messages list them. */
export const ROLES: readonly Role[] = ['user', 'assistant', 'tool', 'system'];

/** Where a record sits in its file. Lines are 1-based and inclusive; offsets are bytes, end exclusive. */
export interface SourceSpan {
  startLine: number;
  endLine: number;
  startOffset: number;
  endOffset: number;
}

/** How a token figure was obtained, so every output can say which kind of number it is. */
export type TokenSource = 'recorded' | 'counted';

/** One entry of the raw log. */
export interface Turn {
  id: TurnId;
  role: Role;
  /** The text the turn contributes to the context (tool calls rendered as text). */
  text: string;
  /** Token count recorded by the transcript itself; when absent, analyze counts `text`. */
  tokens?: number;
  /** The note's `anchor_token`: matched exactly in the summary. When absent, anchors are derived. */
  anchor?: string;
  span: SourceSpan;
  /** Set when the turn's raw text lives in another file (e.g. a parent session); says where. */
  externalSource?: string;
  /** Free-form label for the UI (tool name, record kind). */
  label?: string;
  /**
   * For a tool result: the call it answers. `callText` is that call rendered as text ("[tool call NAME] ARGS",
   * see formats/textOf.ts) and `turnId` the turn that made it. A result takes its identity (the path read, the
   * command run, the task) from its call, and the two are judged together.
   */
  answers?: { turnId: TurnId; callText: string };
  /** For a tool result: true when the tool reported failure (Claude Code's and Anthropic's `is_error`). */
  error?: boolean;
  /**
   * The turn's visible reasoning (thinking blocks). It is not part of the context, so it is never counted, but
   * it says what a lookup was for: a summary that repeats it shows the lookup was carried.
   */
  reasoning?: string;
}

/** Format-specific evidence that helps the truncation check. All optional. */
export interface TruncationHints {
  /** Phrases a complete summary of this format ends with (any one suffices), e.g. "Please continue". */
  expectedClosings?: string[];
  /** Whether the raw summariser output carried its closing marker (e.g. `</summary>`); undefined = unknown. */
  rawOutputClosed?: boolean;
  /** Name of the raw closing marker, for messages (e.g. "</summary>"). */
  rawClosingMarker?: string;
  /** Number of the last numbered section a complete summary has (Claude Code: 9). */
  expectedLastSection?: number;
}

/** One compaction: a summary that replaced a prefix of turns, and the turns it claims to cover. */
export interface Checkpoint {
  summaryId: string;
  summary: string;
  /** Summary budget in tokens; undefined when unknown. */
  summaryBudget?: number;
  /** True when summaryBudget is a configured default, not recorded in the transcript. */
  budgetAssumed?: boolean;
  /** The pointer set: ids of turns the checkpoint claims its summary covers. */
  claimedIds: TurnId[];
  /** Path A: ids the summariser reported it consumed. Undefined = no report (Path B). */
  reportedIds?: TurnId[];
  /** Where the checkpoint record(s) sit. */
  span: SourceSpan;
  /** Number of turns that precede the checkpoint in log order (turns[0..turnsBefore-1]). */
  turnsBefore: number;
  /** True when the summary is encrypted or otherwise unreadable: coverage cannot be verified. */
  opaque?: boolean;
  /**
   * Set when coverage cannot be checked in this file although the summary is readable, saying why
   * (e.g. the summarised turns are in a parent session's file). Judged fail-closed.
   */
  unverifiable?: string;
  /** Prefix size the agent itself recorded (Claude Code preTokens, Codex token_count). */
  recordedPrefixTokens?: number;
  /** Summary size the transcript recorded, when it did. */
  recordedSummaryTokens?: number;
  truncationHints?: TruncationHints;
  /** Facts the reader wants shown with the checkpoint (e.g. "covered turns are in the parent session"). */
  notes?: string[];
}

export type Severity = 'error' | 'warning' | 'info';

/** Something that could not be read or does not add up, with the line it concerns (1-based; 0 = whole file). */
export interface Problem {
  line: number;
  severity: Severity;
  message: string;
}

export type FormatId = 'canonical' | 'claude-code' | 'codex' | 'openhands' | 'langchain' | 'letta' | 'pi' | 'message-array';

export interface Transcript {
  format: FormatId;
  turns: Turn[];
  checkpoints: Checkpoint[];
  problems: Problem[];
  /** Number of lines read. */
  lineCount: number;
}

/** One raw line handed to a reader. */
export interface RawLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past the line's last byte (before the newline). */
  endOffset: number;
  text: string;
  /** False only for a last line with no newline after it (an agent may still be writing it). */
  terminated: boolean;
}

/** A file beside the transcript that a reader may use (e.g. Claude Code's subagents/agent-acompact-*.jsonl). */
export interface SideFile {
  path: string;
  text: string;
}

export interface ReaderContext {
  fileName: string;
  sideFiles?: SideFile[];
  /** Budget to assume when the format records none (marked assumed). */
  defaultBudget?: number;
  /**
   * Given each turn as soon as the reader is done with it (it never changes the turn again): the turn to keep in
   * its place, the same turn with its text kept elsewhere (a temporary file, for a large transcript read once
   * from its start: no line is pushed again). A reader that may change a turn after it handed it over changes a
   * plain copy of it in its place (the Claude Code reader: a reply's record that comes after the next turn began).
   * Given only with `readOnce`, which it implies.
   */
  keepTurn?: (turn: Turn) => Turn;
  /**
   * Where a reader may keep a text it needs again later, rather than in memory (a temporary file, given with
   * keepTurn): the texts of the calls a later tool result may answer (CallLinks).
   */
  textKeeper?: TextKeeper;
  /**
   * The file is read once, from its start: no line is pushed again (linesOnce), and none is appended.
   */
  readOnce?: boolean;
  /**
   * No line is pushed again: the lines come in order, each once, appended ones included (TranscriptFile, which
   * gives a file it cannot read as appended to a new reader). A reader may then let go of what it keeps only to
   * read lines again (the Claude Code, Codex and pi readers' records). `readOnce` implies it.
   */
  linesOnce?: boolean;
  /**
   * A digest of a text (the node shell's SHA-256), for a reader to keep in place of a long text it only compares
   * (the Codex reader's keys of items matched against replacement_history). Without it the text is kept.
   */
  digest?: (text: string) => string;
}

/** Keeps texts elsewhere and gives them back by the number it gave each (ReaderContext.textKeeper). */
export interface TextKeeper {
  /** Keeps `text`; its number, or undefined when it could not be kept (the caller keeps it then). */
  keepText(text: string): number | undefined;
  /** The text kept as number `at`. */
  keptText(at: number): string;
}

/** A streaming reader: lines are pushed in order; `finish` may be called more than once as a file grows. */
export interface TranscriptReader {
  readonly format: FormatId;
  push(line: RawLine): void;
  finish(): Transcript;
  /**
   * How many of the checkpoints the next finish() returns, the first ones, are settled: no line appended later
   * (pushed after those pushed so far) changes them, but for their notes (which no verdict reads), nor the turns
   * before their turnsBefore. Their verdicts can then be worked out before the file is read to its end
   * (TranscriptFile's onSettledCheckpoints). A reader that cannot tell (LangChain, Letta, and a document that is
   * an object or is read whole) says none, or has no such method: its verdicts are said once the file is read.
   */
  settledCheckpoints?(): number;
}

// ---------------------------------------------------------------------------------------------------------
// Analysis

/**
 * A turn's status for one checkpoint. The main three: `covered` (claimed and substantiated), `claimed-missing`
 * (claimed, not substantiated: the silent failure), `uncovered` (not claimed). Two neutral ones, never evidence
 * of coverage: `nothing-to-check` (claimed, but holds nothing worth carrying) and `unverifiable` (the summary
 * cannot be read, or the claimed turns are not in this file).
 */
export type TurnStatus = 'covered' | 'claimed-missing' | 'uncovered' | 'nothing-to-check' | 'unverifiable';
export const TURN_STATUSES: readonly TurnStatus[] = ['covered', 'claimed-missing', 'uncovered', 'nothing-to-check', 'unverifiable'];
export type Verdict = 'reversible' | 'conditional' | 'fail-closed';

/** A checkpoint's verdict alone, as progress shows it before the analysis is done (analyzeFile's onVerdict). */
export interface CheckpointVerdict {
  summaryId: string;
  /** undefined while it rests on what the analysis has not done yet (the judging, the exact counts). */
  verdict?: Verdict;
}

/**
 * What a piece of evidence is. `explicit`: the transcript's own anchor (matched exactly). The rest are derived
 * from the turn's text (and, for a tool result, from its call): `path` (a path or file name), `command` (a
 * command and its arguments), `identifier` (code names and their parts), `reference` (task, issue or PR ids),
 * `url`, `count` (a number with its noun, "49 tests"), `number`, `key-value` (the value is required),
 * `error-code`, `quoted` (a quoted phrase or a sentence), `name` (a proper noun), `term` (a distinctive word of
 * the conversation's prose, "gitignored"), `weak` (colours, timestamps, record ids,
 * hashes, line numbers: rarely what a summary keeps).
 */
export type EvidenceKind =
  | 'explicit'
  | 'path'
  | 'command'
  | 'identifier'
  | 'reference'
  | 'url'
  | 'count'
  | 'number'
  | 'key-value'
  | 'error-code'
  | 'quoted'
  | 'name'
  | 'term'
  | 'weak';

/** One piece of evidence that a turn's content survived into a summary, found or not. */
export interface Evidence {
  /** As the turn spells it (shown to the user). */
  text: string;
  kind: EvidenceKind;
  found: boolean;
  /** Character offset of the first match in the summary, when found. */
  at?: number;
  /** Length of that match in the summary, when found. */
  length?: number;
  /** What was matched, when it is not `text` itself (a path's file name, a key=value's value…). */
  matched?: string;
  /** How much it counts towards the turn's score: salience of its kind × specificity to this turn. */
  weight: number;
  /** How many of the checkpoint's claimed turns (a call and its results count once) hold it. */
  sharedBy: number;
  /** True when it comes from the call a tool result answers rather than from the result's own text. */
  fromCall?: boolean;
  /** True when it comes from the turn's reasoning (thinking blocks), which its text does not show. */
  fromReasoning?: boolean;
}

export interface TurnResult {
  id: TurnId;
  index: number;
  status: TurnStatus;
  claimed: boolean;
  /** Path A only: whether the summariser reported consuming this turn. */
  reported?: boolean;
  /** The evidence weighed for this turn, heaviest first ([] when nothing was weighed). */
  evidence: Evidence[];
  /** Sum of the weights of the evidence found in the summary (Path B, readable summary, claimed turn only). */
  score?: number;
  /** The score a turn needs to count as covered (the analysis's coverage threshold), when a score was computed. */
  threshold?: number;
  /**
   * One sentence saying why the turn has this status; undefined for a weighed turn that is covered or
   * claimed-missing, whose sentence follows from its status, evidence, score and threshold and is made only when
   * asked for (core/reweigh.ts turnReason, which gives every turn's): at 100k turns those sentences were some
   * 40 MB of two-byte strings kept with the results, and a tenth of the judging's time to make.
   */
  reason: string | undefined;
  line: number;
  endLine: number;
  tokens?: number;
}

export interface TruncationReport {
  truncated: boolean;
  reasons: string[];
  /** Character offset in the summary where it appears cut (its end), when truncated. */
  cutAt?: number;
}

export interface IdRange {
  from: TurnId;
  to: TurnId;
  count: number;
}

export interface CheckpointAnalysis {
  summaryId: string;
  index: number;
  line: number;
  endLine: number;
  verdict: Verdict;
  /** Human-readable reasons for the verdict, most important first. */
  reasons: string[];
  /** 'A' when the summariser reported what it consumed, 'B' when anchors are the evidence. */
  path: 'A' | 'B';
  claimedIds: TurnId[];
  prefixTokens: number;
  /** How prefixTokens was obtained: all recorded, all counted, or a mix. */
  prefixTokenSource: TokenSource | 'mixed';
  recordedPrefixTokens?: number;
  summaryTokens: number;
  summaryBudget?: number;
  budgetAssumed: boolean;
  ratioFloor: number;
  /** summaryBudget × ratioFloor; undefined when the budget is unknown. */
  ceiling?: number;
  overCeiling: boolean;
  opaque: boolean;
  /** Why coverage cannot be checked in this file, when it cannot (see Checkpoint.unverifiable). */
  unverifiable?: string;
  truncation: TruncationReport;
  /** One entry per turn that precedes the checkpoint, in log order; none when `turnsWritten` is set. */
  turns: TurnResult[];
  /**
   * Set when the turns' full results went to the analysis's turn sink as they were judged (AnalysisOptions.turnSink):
   * `turns` is then empty, `turnsBefore` says how many turns precede the checkpoint, and Analysis.turnPlaces has
   * their ids and lines. The checkpoint's own figures were made as the turns were judged.
   */
  turnsWritten?: true;
  /** With turnsWritten: how many turns precede the checkpoint (the first of Analysis.turnPlaces). */
  turnsBefore?: number;
  counts: Record<TurnStatus, number>;
  /** What the pointer set should have been. */
  safeCovered: TurnId[];
  claimedMissingRanges: IdRange[];
  /** Evidence that was found in the summary, with its offsets, for highlighting. */
  foundAnchors: { anchor: string; at: number }[];
  notes: string[];
}

export interface Analysis {
  format: FormatId;
  turnCount: number;
  checkpoints: CheckpointAnalysis[];
  problems: Problem[];
  /** With a turn sink (CheckpointAnalysis.turnsWritten): every turn's id and lines, for the reports. */
  turnPlaces?: TurnPlaces;
}

/**
 * The transcript's first turns' ids and lines, in log order: what the reports show of the turns whose results went
 * to a turn sink (a TurnResult's id, line and endLine), read from the turns when asked rather than copied (an
 * array of ids and one of lines were 72 MB at 3M turns, made at the end of the analysis, its peak).
 */
export interface TurnPlaces {
  /** How many turns there are places of: those before the farthest checkpoint whose results went to the sink. */
  count: number;
  /** Turn i's id (TurnResult.id), line (TurnResult.line) and last line (endLine), for i below count. */
  id(index: number): TurnId;
  line(index: number): number;
  endLine(index: number): number;
}

/**
 * A checkpoint's turns as judged (core/analyze.ts, kept in core/judgementCache.ts): what the checkpoint's figures
 * read of each turn, in columns, and the results themselves unless a turn sink took them.
 */
export interface JudgedTurns {
  /**
   * One result per turn before the checkpoint; undefined when a turn sink took them. A judgement reads no token
   * figure: its results have none, or (as the checkpoint memo keeps them) the figures of the analysis that showed them,
   * which an analysis with other figures replaces (core/analyze.ts shownResult).
   */
  results: readonly TurnResult[] | undefined;
  /**
   * The turns before this one are uncovered and unmarked (none of them is claimed or reported), and so are those
   * from `from + statuses.length` on.
   */
  from: number;
  /** Turn `from + i`'s status, as its index in TURN_STATUSES (up to the last turn not uncovered or marked). */
  statuses: Uint8Array;
  /** Turn `from + i`'s JUDGED_CLAIMED and JUDGED_REPORTED bits (Path A: whether the summariser reported consuming it). */
  marks: Uint8Array;
  /**
   * Turn `from + i`'s coverage rule (the RULE_ bits, 0 for a turn whose status no weighing decided): how its status
   * follows from its score and the coverage threshold, so another threshold re-weighs the turn without judging it
   * again (core/reweigh.ts).
   */
  rules: Uint8Array;
  /** With a turn sink: the evidence found in the summary, each place in it once (what foundAnchors needs). */
  found: readonly Evidence[];
}

/** JudgedTurns.marks: the checkpoint claims the turn. */
export const JUDGED_CLAIMED = 1;
/** JudgedTurns.marks: the summariser reported consuming the turn (Path A). */
export const JUDGED_REPORTED = 2;

// A turn's coverage rule (JudgedTurns.rules, core/evidence.ts coveredAt): what its weighing found besides its score.
/** The turn's status came from weighing its evidence against the summary (its score and the threshold). */
export const RULE_WEIGHED = 1;
/** Covered or not whatever the score: a confirmation by whether the summary knows its target, an echoed narration. */
export const RULE_FIXED = 2;
/** With RULE_FIXED: covered. */
export const RULE_FIXED_COVERED = 4;
/**
 * A found piece is the turn's own, or the turn is plain words, or a narration missing nothing of its own: then a
 * score at the threshold covers it (else it takes CARRIED_AT_LENGTH times it).
 */
export const RULE_OWN = 8;
/** A failed call's result whose own (error) text the summary does not carry: never covered. */
export const RULE_BLOCKED = 16;
/** The turn only looks things up: not covered, it holds nothing that can be lost. */
export const RULE_LOOKUP_ONLY = 32;
/** The turn holds plain words only: not covered, it holds no specific fact that can be lost. */
export const RULE_WORDS_ONLY = 64;

/** A run of claimed-missing turns with the lines it spans (first turn's first line to last turn's last line). */
export interface LinedIdRange extends IdRange {
  startLine: number;
  endLine: number;
}

/** What a list of checkpoints shows of one (view/analysisDigest.ts): no turns, evidence or summary text. */
export interface CheckpointDigest {
  summaryId: string;
  line: number;
  endLine: number;
  verdict: Verdict;
  reasons: string[];
  counts: Record<TurnStatus, number>;
  truncation: Pick<TruncationReport, 'truncated'>;
  /** Why coverage could not be checked (view/timelineData.ts whyUnverifiable), when it could not. */
  whyUnverifiable?: string;
  claimedMissingRanges: LinedIdRange[];
}

/**
 * A small digest of an analysis: what the extension keeps of a transcript it no longer holds in full (its
 * checkpoints' verdicts, counts and claimed-missing runs), a few hundred bytes per checkpoint.
 */
export interface AnalysisDigest {
  format: FormatId;
  turnCount: number;
  checkpoints: CheckpointDigest[];
}

/** Counts tokens of a text. Shells inject tiktoken; tests may inject it too. */
export type TokenCounter = (text: string) => number;

/**
 * Counted tokens by text (a count depends on the text and the encoding only), so a text is tokenized at most once
 * across re-analyses, even when a reader rebuilds its Turn objects after an append. A Map keyed by the text itself
 * is one (the extension's, whose texts are in memory anyway); a shell whose texts are on disk keys by a digest of
 * the text instead (node/digestTokenCache.ts), so the cache holds no text. One cache per encoding: clear it when
 * the encoding changes.
 */
export interface TokenCache {
  /** How many texts have a count. */
  readonly size: number;
  get(text: string): number | undefined;
  has(text: string): boolean;
  set(text: string, count: number): unknown;
}

export interface AnalysisOptions {
  /** R_low, the compression-ratio floor. Default 5. */
  ratioFloor?: number;
  countTokens: TokenCounter;
  /**
   * The weighted evidence a claimed turn needs found in its summary to count as covered (see core/evidence.ts,
   * DEFAULT_COVERAGE_THRESHOLD). The same for every format.
   */
  coverageThreshold?: number;
  /** Summary tokens within this fraction of the budget count as "at the budget". Default 0.03. */
  nearBudgetFraction?: number;
  /** Memo of counted tokens, so a text is tokenized at most once across re-analyses. */
  tokenCache?: TokenCache;
  /** Memo of turns' evidence, so a turn's pieces are worked out once across re-analyses (core/evidenceCache.ts). */
  evidenceCache?: import('./evidenceCache').EvidenceCache;
  /**
   * Memo of the file's checkpoint analyses (core/checkpointMemo.ts): a re-analysis of the file's next snapshot
   * reuses each checkpoint's analysis, as the same object, when nothing it depends on changed. Only for exact
   * counts (never with bounds), one per file; it never changes a result. It relies on readers never modifying
   * a Turn they returned (a changed turn is a new object).
   */
  checkpointMemo?: import('./checkpointMemo').CheckpointMemo;
  /**
   * The turns' judgements of this snapshot's checkpoints (core/judgementCache.ts), made ahead by judgeAhead: the
   * analysis takes them instead of judging the turns again, and keeps there the ones it makes. One per snapshot
   * and analysis run (the bounds' analysis and the exact one share it); it never changes a result.
   */
  judgements?: import('./judgementCache').JudgementCache;
  /**
   * Where each turn's full result goes as it is judged, for a one-shot run that writes the results out (the CLI's
   * check) rather than keep them: the analysis then keeps of each turn only what its checkpoint's figures need
   * (CheckpointAnalysis.turnsWritten), so it does not hold every turn's evidence and reason at once. With a sink
   * the checkpoint memo only indexes the turns: no analysis it kept is reused and none is kept in it, so every
   * checkpoint is judged, once per analysis run (the bounds' analysis and the exact one share the judgements).
   */
  turnSink?: TurnSink;
}

/** Takes the turns' results as an analysis judges them (AnalysisOptions.turnSink). */
export interface TurnSink {
  /**
   * Checkpoint `index`'s turns come next, in log order. A second begin of the same index (its judging failed
   * midway and is tried again) voids what the first one received.
   */
  begin(index: number): void;
  /** One turn's result: complete but for its token figure, which it has only when the transcript recorded it. */
  turn(result: TurnResult): void;
}

/**
 * What a one-shot command that shows a few turns (find, bundle) kept of an analysis whose turns went to a sink
 * (core/keptTurns.ts): the results of the turns it asked for, and each checkpoint's claimed-missing turns.
 * findFact and the recovery bundle read a checkpoint with turnsWritten through it.
 */
export interface KeptResults {
  /** Checkpoint `checkpoint`'s result for the turn at `index`, when that turn was asked for. */
  result(checkpoint: number, index: number): TurnResult | undefined;
  /** The indexes of checkpoint `checkpoint`'s claimed-missing turns, ascending. */
  dropped(checkpoint: number): readonly number[];
}

// ---------------------------------------------------------------------------------------------------------
// Finding a fact (core/findFact.ts): where the text of a turn went at each checkpoint, and how the note's
// `reconstruct` would reach it.

/** What `find` looks for: plain text (matched case-insensitively) or a checked regular expression. */
export type FactQuery = { kind: 'text'; text: string } | { kind: 'regex'; source: string; flags: string };

/**
 * How a checkpoint routes a request for the fact (the note's `reconstruct`): `summary` (a covered turn: the
 * summary is authoritative), `raw-log` (uncovered, claimed-missing, unverifiable or nothing to check: read the
 * turn's record), or `not-compacted` (the turn comes after the checkpoint, which compacted nothing of it).
 */
export type FactRouteKind = 'summary' | 'raw-log' | 'not-compacted';

/** One checkpoint's answer for one matching turn. */
export interface FactRoute {
  summaryId: string;
  /** Index of the checkpoint in the analysis. */
  checkpoint: number;
  /** Line of the checkpoint's record. */
  checkpointLine: number;
  /** False when the turn comes after the checkpoint. */
  compacted: boolean;
  /** Whether the checkpoint's pointer set claims the turn. */
  claimed: boolean;
  /** The turn's status for this checkpoint (undefined when not compacted by it). */
  status?: TurnStatus;
  /** Whether the summary holds the matched text itself (case-insensitively). */
  summaryHasText: boolean;
  /** The turn's evidence found in the summary, as the turn spells it (heaviest first). */
  evidenceFound: string[];
  /** How many pieces of evidence were weighed for the turn. */
  evidenceWeighed: number;
  route: FactRouteKind;
  /** The raw line a `raw-log` route reads (the turn's first line). */
  line?: number;
  /** True for a claimed-missing turn: reconstruction through the pointer set would give a false negative here. */
  flagged: boolean;
  /** Why the route is what it is, one clause ("claimed by S1 but absent from its summary"). */
  why: string;
  /** The route as said to a user ("from summary S1", "raw log line 409"). */
  says: string;
}

/** One turn whose text matches the query. */
export interface FactMatch {
  turnId: TurnId;
  turnIndex: number;
  role: Role;
  line: number;
  endLine: number;
  /** Set when the turn's raw text lives in another file. */
  externalSource?: string;
  /** Matches in the turn's text, counted up to FindOptions.maxPerTurn; `more` when the count stopped there. */
  occurrences: number;
  more: boolean;
  /** The first match as the turn spells it (cut to a readable length), and where it starts in the turn's text. */
  matched: string;
  at: number;
  /** The first match with some text either side, on one line. */
  excerpt: { before: string; match: string; after: string };
  /** One entry per checkpoint, in log order. */
  routes: FactRoute[];
}

/** A summary whose own text matches the query. */
export interface SummaryMention {
  summaryId: string;
  checkpoint: number;
  line: number;
  /** The first match in the summary with some text either side. */
  excerpt: { before: string; match: string; after: string };
}

export interface FactAnswer {
  /** The query as typed. */
  query: string;
  matches: FactMatch[];
  /** Matching turns beyond FindOptions.maxMatches, not listed. */
  omitted: number;
  /** Matching turns with a flagged route (claimed by a checkpoint whose summary does not carry them). */
  flagged: number;
  /** Summaries that hold the query themselves. */
  summaryMentions: SummaryMention[];
}

export interface FindOptions {
  /** Most matching turns listed (default 200). */
  maxMatches?: number;
  /** Most matches counted in one turn (default 100). */
  maxPerTurn?: number;
  /** Where the results of a checkpoint whose turns went to a sink (turnsWritten) are read. */
  kept?: KeptResults;
}

// ---------------------------------------------------------------------------------------------------------
// Corrected checkpoints (the "Export Corrected Checkpoint" repair; see docs/corrected-checkpoint.md)

/** The design note's pointer set as it should have been: `covered` (the safe pointer set) and `uncovered` (routed to the raw log). */
export interface SafePointerSet {
  summary_id: string;
  covered: TurnId[];
  uncovered: TurnId[];
}

/** A turn the checkpoint claimed that the safe pointer set leaves out, and why (its status and reason for that checkpoint). */
export interface MovedTurn {
  id: TurnId;
  status: TurnStatus;
  /** The turn's first line in the transcript. */
  line: number;
  /** The turn's reason, on one line. */
  reason: string;
}

/** One checkpoint's pointer set as claimed and as it should have been. */
export interface CorrectedCheckpoint {
  summaryId: string;
  /** The checkpoint record's (first) line in the transcript. */
  line: number;
  verdict: Verdict;
  path: 'A' | 'B';
  /** The pointer set the checkpoint wrote. */
  claimedIds: TurnId[];
  /** The safe pointer set (the note's covered ids): what the summary may be trusted for. */
  safeIds: TurnId[];
  /** Every turn before the checkpoint that is not in the safe set (the note's uncovered ids: read from the raw log). */
  uncoveredIds: TurnId[];
  /** Claimed turns that the safe set leaves out, in claim order. */
  moved: MovedTurn[];
}

/** Every checkpoint of one transcript, corrected: what the sidecar document holds. */
export interface CorrectedCheckpoints {
  /** The transcript's file name (no folder). */
  source: string;
  format: FormatId;
  checkpoints: CorrectedCheckpoint[];
}

/** What an export writes: the sidecar JSON document, or (canonical transcripts) the corrected canonical JSONL. */
export type CorrectedExportKind = 'sidecar' | 'canonical-jsonl';

export const VERDICTS: readonly Verdict[] = ['reversible', 'conditional', 'fail-closed'];

// ---------------------------------------------------------------------------------------------------------
// Recovery bundle (core/recoveryBundle.ts, core/secretMask.ts)

/**
 * Which turns a recovery bundle quotes: the claimed-missing turns of checkpoints (indices into
 * Analysis.checkpoints, one section each), or turns named by id (a find's matches), in log order.
 */
export type BundleSelection = { kind: 'checkpoints'; checkpointIndices: readonly number[] } | { kind: 'turns'; ids: readonly TurnId[] };

export interface BundleWriteOptions {
  /** Replace secrets-looking strings by a `[masked …]` mark (default true). */
  mask?: boolean;
  /** The transcript's file name, said in the bundle's introduction. */
  fileName?: string;
  /** Where the claimed-missing turns of a checkpoint whose turns went to a sink (turnsWritten) are read. */
  kept?: KeptResults;
  /** The Markdown handed over a block at a time as it is made, rather than kept (the CLI writes it out so). */
  stream?: BundleStream;
}

/** Where a bundle written as it is made goes (BundleWriteOptions.stream). */
export interface BundleStream {
  /** Each block, in order: joined with nothing between them they are the bundle, and so are their token counts. */
  onBlock(block: string): void;
  /**
   * How many strings the masking will replace (core/recoveryBundle.ts maskedInTurns, over the same turns): the note
   * saying so comes before the turns.
   */
  maskedAhead: number;
}

export interface BundleOptions extends BundleWriteOptions {
  /** Counts the bundle's tokens (shells inject tiktoken). */
  countTokens: TokenCounter;
}

/** A Markdown block of raw turns, ready to paste back into an agent's context. */
export interface RecoveryBundleText {
  /**
   * The Markdown in blocks, in order: joined with nothing between them (bundleMarkdown) they are the bundle. Each
   * ends where tiktoken's pieces restart (a blank line between two parts), so the blocks' token counts add up to the
   * whole's: a shell counts a bundle of tens of megabytes without joining it (recoveryBundle.ts, finish).
   */
  blocks: string[];
  /** How many secrets-looking strings were masked (0 with masking off). */
  masked: number;
  /** The turns it quotes, as the transcript spells their ids, in log order. */
  turnIds: TurnId[];
  /** Ids asked for (turn selection) that no turn of the transcript has. */
  unknownIds: TurnId[];
}

/** A recovery bundle with its size. */
export interface RecoveryBundle extends RecoveryBundleText {
  /** The blocks joined. */
  markdown: string;
  /** Tokens of `markdown`, by the counter given. */
  tokens: number;
}

/** Text with its secrets-looking strings replaced by `[masked KIND]` marks. */
export interface MaskedText {
  text: string;
  /** Number of strings masked. */
  masked: number;
}

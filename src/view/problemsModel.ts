// What the Problems panel, the end-of-line marks and the status bar say about an analysed transcript, in plain
// words and by line, never by record id (a Claude Code turn id is a UUID): one entry per checkpoint (its verdict
// and counts), one per run of claimed-missing turns (their lines, how many, of which kind; so many a checkpoint at
// most, and one counting the rest, so a file's flags stay within what VS Code keeps), the truncated summary on its
// summary line, and the readers' problems with floods of alike ones collapsed. Pure: no vscode
// import, so the unit tests check it without an editor; src/extension turns it into diagnostics and decorations.
import type { CheckpointAnalysis, Problem, Role, Transcript, TurnResult } from '../core/model';
import { whyUnverifiable } from './timelineData';
import { countOf, groupDigits, shortTurnId } from '../core/displayText';
import { turnReason } from '../core/reweigh';

/** A problem severity a setting can pick, `off` for none. */
export const PROBLEM_SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export type ProblemSeverity = (typeof PROBLEM_SEVERITIES)[number];

/** What a claimed-missing turn is: the output of a tool (a tool result), or a turn of the conversation. */
export type TurnKind = 'tool-output' | 'conversation';

/** The severity to give each kind of claimed-missing turn (`off`: not flagged, not marked). */
export type KindSeverities = Record<TurnKind, ProblemSeverity>;

export const DEFAULT_KIND_SEVERITIES: KindSeverities = { conversation: 'warning', 'tool-output': 'information' };

export function turnKind(role: Role): TurnKind {
  return role === 'tool' ? 'tool-output' : 'conversation';
}

/** The more severe of two (error > warning > information > hint > off). */
export function moreSevere(a: ProblemSeverity, b: ProblemSeverity): ProblemSeverity {
  return PROBLEM_SEVERITIES.indexOf(a) <= PROBLEM_SEVERITIES.indexOf(b) ? a : b;
}

/** "line 7" / "lines 381–420" (1-based, inclusive). */
export function describeLines(startLine: number, endLine: number): string {
  return endLine > startLine ? `lines ${startLine}–${endLine}` : `line ${startLine}`;
}

/** The checkpoint's own id, shortened as every id is (core/displayText's shortTurnId): "S1", "d46d6800", "0111e7ef…". */
export function checkpointName(checkpoint: Pick<CheckpointAnalysis, 'summaryId'>): string {
  const id = checkpoint.summaryId.replace(/\s+/g, ' ').trim();
  return id === '' ? 'checkpoint' : shortTurnId(id);
}

/**
 * The checkpoint a one-line report should speak for: the worst verdict (fail-closed > conditional > reversible),
 * then the most claimed-missing turns, then the latest. Undefined when there are none.
 */
export function worstCheckpoint(checkpoints: readonly CheckpointAnalysis[]): CheckpointAnalysis | undefined {
  const rank = { reversible: 0, conditional: 1, 'fail-closed': 2 } as const;
  let worst: CheckpointAnalysis | undefined;
  for (const checkpoint of checkpoints) {
    if (
      !worst ||
      rank[checkpoint.verdict] > rank[worst.verdict] ||
      (rank[checkpoint.verdict] === rank[worst.verdict] && checkpoint.counts['claimed-missing'] >= worst.counts['claimed-missing'])
    ) {
      worst = checkpoint;
    }
  }
  return worst;
}

// ---------------------------------------------------------------------------------------------------------
// Checkpoints

/** The first reason of a verdict, without the consequence the verdict already states. */
function mainReason(checkpoint: CheckpointAnalysis): string | undefined {
  const reason = checkpoint.reasons[0];
  if (!reason) return undefined;
  const cut = reason.search(/:\s*fail closed\b| — /);
  return clip(cut > 0 ? reason.slice(0, cut) : reason, 240);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export type CheckpointProblemKind = 'fail-closed' | 'conditional' | 'unverifiable';

export interface CheckpointProblem {
  kind: CheckpointProblemKind;
  /** 1-based line of the checkpoint record. */
  line: number;
  message: string;
}

/**
 * The one problem a checkpoint gets (on its line), or undefined when it is reversible and its coverage was
 * checked: nothing to flag. A checkpoint whose coverage could not be checked is flagged as such (its
 * fail-closed verdict follows from that alone); otherwise the verdict, the claimed turns' counts and the main reason.
 */
export function checkpointProblem(checkpoint: CheckpointAnalysis): CheckpointProblem | undefined {
  const name = checkpointName(checkpoint);
  const { counts } = checkpoint;
  const why = whyUnverifiable(checkpoint);
  if (why !== undefined) {
    const turns = counts.unverifiable;
    const which = turns > 0 ? ` for its ${countOf(turns, 'claimed turn')}` : '';
    return {
      kind: 'unverifiable',
      line: checkpoint.line,
      message: `Checkpoint ${name}: coverage could not be checked${which}: ${clip(why, 240)}. No coverage may be claimed (fail-closed).`,
    };
  }
  if (checkpoint.verdict === 'reversible') return undefined;
  let claimed = 0;
  for (const result of checkpoint.turns) if (result.claimed) claimed++;
  const missing = counts['claimed-missing'];
  const parts = [`${groupDigits(missing)} of ${countOf(claimed, 'claimed turn')} ${missing === 1 ? 'is' : 'are'} missing from the summary`];
  const others = [`${groupDigits(counts.covered)} covered`];
  if (counts['nothing-to-check'] > 0) others.push(`${groupDigits(counts['nothing-to-check'])} with nothing to check`);
  parts[0] += ` (${others.join(', ')})`;
  if (checkpoint.truncation.truncated) parts.push('the summary appears cut off');
  const verdict =
    checkpoint.verdict === 'fail-closed'
      ? 'not safe to rely on (fail-closed): it may claim only the turns up to the last one its summary carries'
      : 'safe only in part (conditional): narrow what it claims';
  const reason = mainReason(checkpoint);
  return {
    kind: checkpoint.verdict,
    line: checkpoint.line,
    message: `Checkpoint ${name} is ${verdict}. ${capitalise(parts.join('; '))}.${reason ? ` Why: ${reason}.` : ''}`,
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "summary appears cut off: ends mid-clause …; 4,084 of 4,096 tokens", or undefined when it is not truncated. */
export function truncationProblem(checkpoint: CheckpointAnalysis): { line: number; message: string } | undefined {
  if (!checkpoint.truncation.truncated) return undefined;
  const reasons = checkpoint.truncation.reasons.length > 0 ? checkpoint.truncation.reasons.join('; ') : 'it ends abruptly';
  let message = `The summary of checkpoint ${checkpointName(checkpoint)} appears cut off: ${clip(reasons, 400)}`;
  if (checkpoint.summaryBudget !== undefined) {
    const size = `${checkpoint.summaryTokens} of ${checkpoint.summaryBudget} tokens`;
    if (!reasons.includes(size)) message += `; ${size}`;
    if (checkpoint.budgetAssumed) message += ' (assumed budget)';
  } else {
    message += `; ${checkpoint.summaryTokens} tokens`;
  }
  // The summary is the checkpoint's last record (Claude Code: the boundary marker, then the summary message).
  return { line: checkpoint.endLine, message };
}

// ---------------------------------------------------------------------------------------------------------
// Claimed-missing turns

/** A run of claimed-missing turns of one checkpoint, consecutive but for turns with nothing to check. */
export interface MissingRun {
  /** 1-based lines from the first turn's first line to the last turn's last line. */
  startLine: number;
  endLine: number;
  /** The claimed-missing turns in the run (indexes into the transcript's turns), in log order. */
  turnIndexes: number[];
  byKind: Record<TurnKind, number>;
  severity: Exclude<ProblemSeverity, 'off'>;
}

/**
 * The runs of a checkpoint's claimed-missing turns whose kind is not `off`. A run goes on across turns with
 * nothing to check (neutral: nothing to carry) and across claimed-missing turns of a kind that is off; any
 * other turn ends it. Its severity is the most severe of its turns' kinds.
 */
export function claimedMissingRuns(
  checkpoint: CheckpointAnalysis,
  transcript: Pick<Transcript, 'turns'>,
  severities: KindSeverities,
): MissingRun[] {
  const runs: MissingRun[] = [];
  let current: MissingRun | undefined;
  for (const result of checkpoint.turns) {
    const turn = transcript.turns[result.index];
    if (result.status === 'nothing-to-check') continue;
    if (result.status !== 'claimed-missing' || !turn) {
      current = undefined;
      continue;
    }
    const kind = turnKind(turn.role);
    const severity = severities[kind];
    if (severity === 'off') continue;
    const startLine = turn.span.startLine;
    const endLine = Math.max(turn.span.endLine, startLine);
    if (!current) {
      current = { startLine, endLine, turnIndexes: [], byKind: { conversation: 0, 'tool-output': 0 }, severity };
      runs.push(current);
    }
    current.turnIndexes.push(result.index);
    current.byKind[kind]++;
    current.startLine = Math.min(current.startLine, startLine);
    current.endLine = Math.max(current.endLine, endLine);
    current.severity = moreSevere(current.severity, severity) as MissingRun['severity'];
  }
  return runs;
}

/** "lines 381–420: 40 claimed turns (10 tool outputs, 30 conversation turns) missing from the summary (checkpoint at line 421); …" */
export function missingRunMessage(run: MissingRun, checkpoint: Pick<CheckpointAnalysis, 'line'>): string {
  const count = run.turnIndexes.length;
  const tools = run.byKind['tool-output'];
  const conversation = run.byKind.conversation;
  const what =
    tools === 0
      ? `${countOf(count, 'claimed conversation turn')}`
      : conversation === 0
        ? `${countOf(count, 'claimed tool output')}`
        : `${countOf(count, 'claimed turn')} (${countOf(tools, 'tool output')}, ${countOf(conversation, 'conversation turn')})`;
  return `${describeLines(run.startLine, run.endLine)}: ${what} missing from the summary (checkpoint at line ${checkpoint.line}); read ${count === 1 ? 'it' : 'them'} from the raw log`;
}

/**
 * Runs of claimed-missing turns flagged per checkpoint at most. VS Code's extension host keeps 1,000 flags a file
 * and drops the rest with a bare count; a 100,000-turn file can have a few thousand runs, each a flag made, sent to
 * the window and dropped. The runs past this are counted in one flag instead, which says where they start.
 */
export const MAX_MISSING_RUNS = 250;

/** Flags VS Code keeps per file (its extension host drops the least severe past them). */
export const FLAGS_KEPT_PER_FILE = 1000;

/**
 * Runs flagged per checkpoint in a file of `checkpoints` checkpoints: MAX_MISSING_RUNS, fewer when the file's flags
 * would pass FLAGS_KEPT_PER_FILE otherwise, so that VS Code drops none of them (every checkpoint's verdict and the
 * flag counting its other runs stay in the panel). Room is kept for the readers' problems (MAX_PROBLEM_RUNS and the
 * one counting the rest) and, per checkpoint, for its verdict, its truncated summary and the count of its other runs.
 */
export function missingRunsPerCheckpoint(checkpoints: number): number {
  if (checkpoints <= 0) return MAX_MISSING_RUNS;
  const room = FLAGS_KEPT_PER_FILE - (MAX_PROBLEM_RUNS + 1) - 3 * checkpoints;
  return Math.max(0, Math.min(MAX_MISSING_RUNS, Math.floor(room / checkpoints)));
}

/** The runs of a checkpoint that are not flagged one by one: how many, their turns, where the first is. */
export interface UnlistedRuns {
  runs: number;
  turns: number;
  /** How many of the checkpoint's runs are flagged one by one. */
  listed: number;
  /** The first unlisted run's lines (1-based), where its flag goes. */
  startLine: number;
  endLine: number;
  /** The most severe of theirs, so leaving them out never lowers what the panel shows. */
  severity: Exclude<ProblemSeverity, 'off'>;
}

/**
 * The runs to flag one by one, at most `max`: the most severe first, then the earliest, listed in log order; and
 * the rest, counted, or undefined when every run is listed.
 */
export function listedMissingRuns(runs: readonly MissingRun[], max = MAX_MISSING_RUNS): { listed: MissingRun[]; unlisted?: UnlistedRuns } {
  if (runs.length <= max) return { listed: [...runs] };
  const rank = (run: MissingRun): number => PROBLEM_SEVERITIES.indexOf(run.severity);
  const order = runs.map((_, index) => index).sort((a, b) => rank(runs[a]) - rank(runs[b]) || a - b);
  const kept = new Uint8Array(runs.length);
  for (let i = 0; i < max; i++) kept[order[i]] = 1;
  const listed: MissingRun[] = [];
  let unlisted: UnlistedRuns | undefined;
  for (let index = 0; index < runs.length; index++) {
    const run = runs[index];
    if (kept[index] === 1) {
      listed.push(run);
    } else if (!unlisted) {
      const { startLine, endLine, severity } = run;
      unlisted = { runs: 1, turns: run.turnIndexes.length, listed: 0, startLine, endLine, severity };
    } else {
      unlisted.runs++;
      unlisted.turns += run.turnIndexes.length;
      unlisted.severity = moreSevere(unlisted.severity, run.severity) as UnlistedRuns['severity'];
    }
  }
  if (unlisted) unlisted.listed = listed.length;
  return { listed, unlisted };
}

/**
 * "1,550 more runs of claimed-missing turns (3,100 turns, the first on lines 2345–2347) of the checkpoint at line
 * 99001 are not listed here; …" ("1,550 runs …" when none is listed one by one).
 */
export function unlistedRunsMessage(unlisted: UnlistedRuns, checkpoint: Pick<CheckpointAnalysis, 'line'>): string {
  const runs = `${groupDigits(unlisted.runs)}${unlisted.listed > 0 ? ' more' : ''} ${unlisted.runs === 1 ? 'run' : 'runs'}`;
  return (
    `${runs} of claimed-missing turns (${countOf(unlisted.turns, 'turn')}, the first on ` +
    `${describeLines(unlisted.startLine, unlisted.endLine)}) of the checkpoint at line ${checkpoint.line} ${unlisted.runs === 1 ? 'is' : 'are'} not ` +
    `listed here; the timeline shows every turn (n there jumps to the next claimed-missing one)`
  );
}

/** The related-information text of one turn of a run: "line 381, tool output: claimed, but …". */
export function missingTurnNote(result: TurnResult, turn: { role: Role; span: { startLine: number; endLine: number } }): string {
  const kind = turnKind(turn.role) === 'tool-output' ? 'tool output' : `${turn.role} turn`;
  return `${describeLines(turn.span.startLine, turn.span.endLine)}, ${kind}: ${clip(turnReason(result) || 'claimed but not covered', 200)}`;
}

/** One end-of-line mark: the 1-based line of a claimed-missing turn's first record, and its text. */
export interface MissingTurnMark {
  line: number;
  text: string;
}

/**
 * The end-of-line marks of a transcript: one on the first line of each claimed-missing turn whose kind is
 * not off, naming the summaries (by their lines) that claim it without carrying it. Plain text, built from
 * line numbers only: no transcript text goes into a mark.
 */
export function missingTurnMarks(
  analysis: { checkpoints: readonly CheckpointAnalysis[] },
  transcript: Pick<Transcript, 'turns'>,
  severities: KindSeverities,
): MissingTurnMark[] {
  const byLine = new Map<number, number[]>();
  for (const checkpoint of analysis.checkpoints) {
    for (const result of checkpoint.turns) {
      if (result.status !== 'claimed-missing') continue;
      const turn = transcript.turns[result.index];
      if (!turn || severities[turnKind(turn.role)] === 'off') continue;
      const lines = byLine.get(turn.span.startLine) ?? [];
      if (!lines.includes(checkpoint.line)) lines.push(checkpoint.line);
      byLine.set(turn.span.startLine, lines);
    }
  }
  return [...byLine.entries()]
    .sort(([a], [b]) => a - b)
    .map(([line, summaries]) => ({
      line,
      text:
        summaries.length === 1
          ? `claimed, but missing from the summary (checkpoint at line ${summaries[0]})`
          : `claimed, but missing from the summaries (checkpoints at lines ${summaries.join(', ')})`,
    }));
}

// ---------------------------------------------------------------------------------------------------------
// Reader problems

/** Problems (runs) listed per file at most; a damaged file can have one per line. */
export const MAX_PROBLEM_RUNS = 200;

/** A run of alike reader problems: the same severity and the same message but for its numbers. */
export interface ProblemRun {
  severity: Problem['severity'];
  /** 1-based; 0 = the whole file. */
  startLine: number;
  endLine: number;
  count: number;
  message: string;
}

/** A problem's message without its leading "line N: " and with every number as '#': what makes two alike. */
function likeness(problem: Problem): string {
  return `${problem.severity}\u0000${problem.message.replace(/^line \d+:\s*/, '').replace(/\d+/g, '#')}`;
}

/**
 * The readers' problems in line order, each run of consecutive alike ones collapsed into one ("lines 10–50:
 * 41 problems like this: …"), at most `max` runs, then one saying how many more there are.
 */
export function collapseProblems(problems: readonly Problem[], max = MAX_PROBLEM_RUNS): ProblemRun[] {
  const sorted = problems
    .map((problem, order) => ({ problem, order }))
    .sort((a, b) => a.problem.line - b.problem.line || a.order - b.order);
  const runs: { key: string; first: Problem; startLine: number; endLine: number; count: number }[] = [];
  for (const { problem } of sorted) {
    const key = likeness(problem);
    const last = runs[runs.length - 1];
    if (last && last.key === key) {
      last.count++;
      last.endLine = Math.max(last.endLine, problem.line);
    } else {
      runs.push({ key, first: problem, startLine: problem.line, endLine: problem.line, count: 1 });
    }
  }
  const result: ProblemRun[] = runs.slice(0, max).map((run) => ({
    severity: run.first.severity,
    startLine: run.startLine,
    endLine: run.endLine,
    count: run.count,
    message:
      run.count === 1
        ? clip(run.first.message, 1000)
        : `${describeLines(run.startLine, run.endLine)}: ${groupDigits(run.count)} problems like this one: ${clip(run.first.message, 1000)}`,
  }));
  if (runs.length > max) {
    const rest = runs.slice(max);
    const count = rest.reduce((sum, run) => sum + run.count, 0);
    result.push({
      severity: 'info',
      startLine: rest[0].startLine,
      endLine: rest[0].startLine,
      count,
      message: `${countOf(count, 'more problem')} in this transcript ${count === 1 ? 'is' : 'are'} not listed (from line ${rest[0].startLine} on).`,
    });
  }
  return result;
}

// Builds the protocol's payloads (checkpoint headers, pages of timeline rows, turn and summary details,
// the safe pointer set) from a transcript and its analysis, on request, and the short descriptions of a
// checkpoint the tree, CodeLens, diagnostics and status bar share. Pure: no vscode import.
import { fileNameOf, turnRangeName } from '../core/displayText';
import type { Analysis, CheckpointAnalysis, CheckpointDigest, Transcript, Turn, TurnId, TurnResult } from '../core/model';
import type { CheckpointHeader, FileInfo, FirstRows, RowStatus, SummaryDetails, TimelineRow, TurnDetails, ViewState } from '../protocol';
import { firstRowsRange } from './firstView';
import { turnReason } from '../core/reweigh';

/** Most rows one getRows request may ask for. */
export const MAX_ROWS_PER_REQUEST = 1000;
/** Characters of a turn's text sent in its details. */
export const MAX_DETAIL_TEXT = 20000;
const PREVIEW_CHARS = 160;

export function fileInfo(path: string, transcript: Transcript): FileInfo {
  return {
    path,
    name: fileNameOf(path),
    format: transcript.format,
    turnCount: transcript.turns.length,
  };
}

/** The turn result of turn `turnIndex` for a checkpoint, or undefined when the turn comes after it. */
export function turnResult(checkpoint: CheckpointAnalysis, turnIndex: number): TurnResult | undefined {
  const results = checkpoint.turns;
  const direct = results[turnIndex];
  if (direct && direct.index === turnIndex) return direct;
  // The results are in log order (one per turn before the checkpoint): a binary search, not a scan, so asking for
  // a turn after the checkpoint (every appended turn's row) does not read 100k results.
  let low = 0;
  let high = results.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = results[middle].index;
    if (at === turnIndex) return results[middle];
    if (at < turnIndex) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** Number of turns before the checkpoint, from the transcript (falls back to the analysis). */
export function turnsBefore(transcript: Transcript, checkpoint: CheckpointAnalysis): number {
  return transcript.checkpoints[checkpoint.index]?.turnsBefore ?? checkpoint.turns.length;
}

/**
 * Each checkpoint's header, kept with the checkpoint analysis it was made from. A re-analysis after an append
 * gives back the same CheckpointAnalysis for a checkpoint the append cannot change, and its header (a walk over
 * every claimed turn) is not made again. A header depends on the checkpoint, its position and the turns before it.
 */
const madeHeaders = new WeakMap<CheckpointAnalysis, { position: number; turnsBefore: number; header: CheckpointHeader }>();

/** The checkpoints' headers; the same header object again for a checkpoint analysis already seen at that place. */
export function checkpointHeaders(transcript: Transcript, analysis: Analysis): CheckpointHeader[] {
  return analysis.checkpoints.map((checkpoint, position) => {
    const before = turnsBefore(transcript, checkpoint);
    const made = madeHeaders.get(checkpoint);
    if (made && made.position === position && made.turnsBefore === before) return made.header;
    const header = checkpointHeader(transcript, checkpoint, position);
    madeHeaders.set(checkpoint, { position, turnsBefore: before, header });
    return header;
  });
}

/**
 * The last turn result of the safe pointer set's run from the start (the turns, in log order, while each is in the
 * set), or undefined when the first is not. The set lists its ids in log order (analyze keeps the turn results'
 * order), so it is walked in step with the turns; a turn that does not match is looked for in the whole set, and
 * only when it is there (the set is not in log order, or ids repeat) is the set made a Set. Linear, and no Set of
 * every id on a large log.
 */
export function safeRunEnd(checkpoint: CheckpointAnalysis): TurnResult | undefined {
  const safe = checkpoint.safeCovered;
  let lookup: Set<string> | undefined;
  let end: TurnResult | undefined;
  for (const [position, result] of checkpoint.turns.entries()) {
    if (lookup === undefined && position < safe.length && sameId(safe[position], result.id)) {
      end = result;
      continue;
    }
    if (lookup === undefined) {
      if (!safe.some((id) => sameId(id, result.id))) break;
      lookup = new Set(safe.map(String));
    }
    if (!lookup.has(String(result.id))) break;
    end = result;
  }
  return end;
}

/** Two ids are the same turn's when they read the same (a number id and its digits as text). */
function sameId(a: TurnId, b: TurnId): boolean {
  return typeof a === typeof b ? a === b : String(a) === String(b);
}

function checkpointHeader(transcript: Transcript, checkpoint: CheckpointAnalysis, position: number): CheckpointHeader {
  const safeEnd = safeRunEnd(checkpoint);
  const safeBoundaryIndex = safeEnd?.index ?? -1;
  const safeBoundaryId = safeEnd?.id;
  return {
    index: position,
    summaryId: checkpoint.summaryId,
    line: checkpoint.line,
    turnsBefore: turnsBefore(transcript, checkpoint),
    verdict: checkpoint.verdict,
    reasons: checkpoint.reasons,
    path: checkpoint.path,
    prefixTokens: checkpoint.prefixTokens,
    prefixTokenSource: checkpoint.prefixTokenSource,
    recordedPrefixTokens: checkpoint.recordedPrefixTokens,
    summaryTokens: checkpoint.summaryTokens,
    summaryBudget: checkpoint.summaryBudget,
    budgetAssumed: checkpoint.budgetAssumed,
    ceiling: checkpoint.ceiling,
    ratioFloor: checkpoint.ratioFloor,
    opaque: checkpoint.opaque,
    unverifiable: checkpoint.unverifiable,
    truncation: checkpoint.truncation,
    counts: checkpoint.counts,
    claimedMissingIndexes: checkpoint.turns.filter((result) => result.status === 'claimed-missing').map((result) => result.index),
    safeBoundaryIndex,
    ...(safeBoundaryId === undefined ? {} : { safeBoundaryId }),
    safeCoveredCount: checkpoint.safeCovered.length,
    notes: checkpoint.notes,
  };
}

/** Status of a turn for checkpoint `checkpointIndex` (-1 = no checkpoint selected: every turn is uncovered). */
export function rowStatus(analysis: Analysis, checkpointIndex: number, turnIndex: number): RowStatus {
  if (checkpointIndex < 0) return 'uncovered';
  const result = turnResult(analysis.checkpoints[checkpointIndex], turnIndex);
  return result ? result.status : 'after';
}

function preview(text: string): string {
  const flat = text
    .slice(0, PREVIEW_CHARS * 4)
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
}

export function timelineRows(
  transcript: Transcript,
  analysis: Analysis,
  checkpointIndex: number,
  start: number,
  count: number,
): TimelineRow[] {
  const end = Math.min(transcript.turns.length, start + Math.min(count, MAX_ROWS_PER_REQUEST));
  const rows: TimelineRow[] = [];
  for (let index = start; index < end; index++) {
    const turn = transcript.turns[index];
    const result = checkpointIndex >= 0 ? turnResult(analysis.checkpoints[checkpointIndex], index) : undefined;
    rows.push({
      index,
      id: turn.id,
      role: turn.role,
      label: turn.label,
      status: checkpointIndex < 0 ? 'uncovered' : (result?.status ?? 'after'),
      tokens: result?.tokens ?? turn.tokens,
      line: turn.span.startLine,
      preview: preview(turn.text),
    });
  }
  return rows;
}

/** At most this many rows ride along with an `updated` message (more are asked for page by page, as usual). */
export const MAX_TAIL_ROWS = 500;

/**
 * The rows an append changed, for an `updated` whose checkpoints are unchanged (`sameCheckpoints`): from the first
 * turn that is not the same object as in `previousTurns` (a new turn, or one the reader replaced) to the end.
 * When those all come after every checkpoint's prefix, their rows are the same for every checkpoint (status
 * `after`), or for none (`uncovered`) when there is no checkpoint, and are returned. Undefined when a turn in a
 * prefix changed, turns went away, or more than MAX_TAIL_ROWS changed: the webview then asks for what it shows.
 */
export function tailRows(
  previousTurns: readonly Turn[],
  transcript: Transcript,
  analysis: Analysis,
): { start: number; rows: TimelineRow[] } | undefined {
  const turns = transcript.turns;
  if (turns.length < previousTurns.length) return undefined;
  let start = 0;
  while (start < previousTurns.length && turns[start] === previousTurns[start]) start++;
  for (const checkpoint of analysis.checkpoints)
    if (start < Math.max(checkpoint.turns.length, turnsBefore(transcript, checkpoint))) return undefined;
  if (turns.length - start > MAX_TAIL_ROWS) return undefined;
  return { start, rows: timelineRows(transcript, analysis, analysis.checkpoints.length > 0 ? 0 : -1, start, turns.length - start) };
}

/**
 * The rows `init` carries: those the timeline shows when it opens (firstView.ts), on the checkpoint it shows, in
 * the view `restore` scrolled to or the default one, so it draws them without asking. Undefined for a transcript
 * with no turns.
 */
export function firstRows(
  transcript: Transcript,
  analysis: Analysis,
  headers: readonly CheckpointHeader[],
  restore?: ViewState,
): FirstRows | undefined {
  const range = firstRowsRange(headers, transcript.turns.length, restore);
  if (!range) return undefined;
  const { checkpointIndex, start, count } = range;
  return { checkpointIndex, start, rows: timelineRows(transcript, analysis, checkpointIndex, start, count) };
}

export function turnDetails(transcript: Transcript, analysis: Analysis, checkpointIndex: number, turnIndex: number): TurnDetails {
  const turn = transcript.turns[turnIndex];
  const checkpoint = checkpointIndex >= 0 ? analysis.checkpoints[checkpointIndex] : undefined;
  const result = checkpoint ? turnResult(checkpoint, turnIndex) : undefined;
  let reason: string;
  if (result) reason = turnReason(result);
  else if (checkpoint) reason = `This turn comes after checkpoint ${checkpoint.summaryId}: it is not part of the compacted prefix.`;
  else reason = 'No checkpoint is selected: the turn is kept verbatim.';
  return {
    index: turnIndex,
    id: turn.id,
    role: turn.role,
    label: turn.label,
    status: result ? result.status : checkpoint ? 'after' : 'uncovered',
    tokens: result?.tokens ?? turn.tokens,
    line: turn.span.startLine,
    endLine: turn.span.endLine,
    reason,
    evidence: result?.evidence ?? [],
    score: result?.score,
    threshold: result?.threshold,
    externalSource: turn.externalSource,
    text: turn.text.length > MAX_DETAIL_TEXT ? turn.text.slice(0, MAX_DETAIL_TEXT) : turn.text,
    textTruncated: turn.text.length > MAX_DETAIL_TEXT,
  };
}

export function summaryDetails(transcript: Transcript, analysis: Analysis, checkpointIndex: number): SummaryDetails {
  const checkpoint = analysis.checkpoints[checkpointIndex];
  return {
    checkpointIndex,
    summaryId: checkpoint.summaryId,
    text: transcript.checkpoints[checkpoint.index]?.summary ?? '',
    foundAnchors: checkpoint.foundAnchors,
    cutAt: checkpoint.truncation.truncated ? checkpoint.truncation.cutAt : undefined,
  };
}

/** The worst verdict across checkpoints (fail-closed > conditional > reversible), or undefined when there are none. */
export function worstVerdict(analysis: {
  checkpoints: readonly Pick<CheckpointAnalysis, 'verdict'>[];
}): CheckpointAnalysis['verdict'] | undefined {
  const order = ['reversible', 'conditional', 'fail-closed'] as const;
  let worst = -1;
  for (const checkpoint of analysis.checkpoints) worst = Math.max(worst, order.indexOf(checkpoint.verdict));
  return worst < 0 ? undefined : order[worst];
}

/**
 * "380 covered · 40 claimed-missing · 3 nothing to check · fail-closed", the one-line description of a
 * checkpoint: covered always, the other statuses when there are any.
 */
export function describeCheckpoint(checkpoint: Pick<CheckpointDigest, 'counts' | 'truncation' | 'verdict'>): string {
  const { counts } = checkpoint;
  const parts = [`${counts.covered} covered`];
  if (counts['claimed-missing'] > 0) parts.push(`${counts['claimed-missing']} claimed-missing`);
  if (counts.uncovered > 0) parts.push(`${counts.uncovered} uncovered`);
  if (counts['nothing-to-check'] > 0) parts.push(`${counts['nothing-to-check']} nothing to check`);
  if (counts.unverifiable > 0) parts.push(`${counts.unverifiable} unverifiable`);
  if (checkpoint.truncation.truncated) parts.push('truncated');
  parts.push(checkpoint.verdict);
  return parts.join(' · ');
}

/**
 * Why coverage of a checkpoint could not be checked (its summary is unreadable, or the turns it claims are
 * not in this file), or undefined when it could.
 */
export function whyUnverifiable(checkpoint: CheckpointAnalysis): string | undefined {
  if (checkpoint.opaque) {
    return checkpoint.path === 'A'
      ? "the summary is encrypted, so coverage rests on the summariser's report alone"
      : 'the summary is encrypted or otherwise unreadable';
  }
  if (checkpoint.unverifiable) return checkpoint.unverifiable;
  if (checkpoint.counts.unverifiable > 0) {
    const unverifiable = checkpoint.turns.find((result) => result.status === 'unverifiable');
    return unverifiable ? turnReason(unverifiable) : 'the claimed turns are not in this file';
  }
  return undefined;
}

/** "turns 380–419" / "turn 7" / "turns 0111e7ef…–9c2d4e1a…": by the turns' own ids, long ones shortened. */
export function describeRange(from: TurnId, to: TurnId, count: number): string {
  return turnRangeName(from, to, count);
}

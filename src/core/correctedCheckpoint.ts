// The repair of a checkpoint's pointer set, from an analysis: the pointer set as claimed, the safe pointer set
// (the note's covered ids; the one rule, shared with Copy Safe Pointer Set), the turns routed to the raw log, and
// the claimed turns the safe set leaves out with their status and reason. Also what an export is called and what
// it holds (corrected canonical JSONL for canonical transcripts, the sidecar document otherwise). The repair can
// be worked out in steps (correctedCheckpointsInSteps), for a shell's time slices. Pure.
import { countOf, fileNameOf, groupDigits, transcriptStem } from './displayText';
import type {
  Analysis,
  CheckpointAnalysis,
  CorrectedCheckpoint,
  CorrectedCheckpoints,
  CorrectedExportKind,
  FormatId,
  MovedTurn,
  SafePointerSet,
  TurnResult,
} from './model';
import { turnReason } from './reweigh';
import { runSteps } from './steps';

/** The suffix of a sidecar document: `<transcript>.compaction-lens.json`. */
export const SIDECAR_SUFFIX = '.compaction-lens.json';
/** What replaces a canonical transcript's extension in its corrected copy: `<name>.corrected.jsonl`. */
export const CORRECTED_JSONL_SUFFIX = '.corrected.jsonl';

/** What the pointer set should have been, in the design note's shape: covered ids and ids routed to the raw log. */
export function safePointerSet(checkpoint: CheckpointAnalysis): SafePointerSet {
  const safe = new Set(checkpoint.safeCovered.map(String));
  return {
    summary_id: checkpoint.summaryId,
    covered: checkpoint.safeCovered,
    uncovered: checkpoint.turns.filter((result) => !safe.has(String(result.id))).map((result) => result.id),
  };
}

/** A reason on one line (a reason may quote a summary or a turn, newlines and all). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Moved turns a step of correctedCheckpointsInSteps writes (each reason is made when asked: a few microseconds). */
const MOVED_PER_STEP = 64;
/** Turn results a step of correctedCheckpointsInSteps finds by id. */
const RESULTS_PER_STEP = 4096;

/** One checkpoint's pointer set as claimed and as it should have been, and the claimed turns moved out of it. */
export function correctCheckpoint(checkpoint: CheckpointAnalysis): CorrectedCheckpoint {
  return runSteps(correctCheckpointInSteps(checkpoint));
}

function* correctCheckpointInSteps(checkpoint: CheckpointAnalysis): Generator<void, CorrectedCheckpoint, void> {
  const set = safePointerSet(checkpoint);
  const safe = new Set(set.covered.map(String));
  yield;
  const results = new Map<string, TurnResult>();
  for (let index = 0; index < checkpoint.turns.length; index++) {
    const result = checkpoint.turns[index];
    results.set(String(result.id), result);
    if (index % RESULTS_PER_STEP === RESULTS_PER_STEP - 1) yield;
  }
  yield;
  const moved: MovedTurn[] = [];
  for (const id of checkpoint.claimedIds) {
    if (safe.has(String(id))) continue;
    const result = results.get(String(id));
    moved.push(
      result
        ? { id, status: result.status, line: result.line, reason: oneLine(turnReason(result)) }
        : { id, status: 'unverifiable', line: 0, reason: 'The turn is not in this file, so its coverage cannot be checked.' },
    );
    if (moved.length % MOVED_PER_STEP === 0) yield;
  }
  return {
    summaryId: checkpoint.summaryId,
    line: checkpoint.line,
    verdict: checkpoint.verdict,
    path: checkpoint.path,
    claimedIds: checkpoint.claimedIds,
    safeIds: set.covered,
    uncoveredIds: set.uncovered,
    moved,
  };
}

/** Every checkpoint of a transcript, corrected. `transcriptPath` may be a path: only its file name is kept. */
export function correctedCheckpoints(analysis: Analysis, transcriptPath: string): CorrectedCheckpoints {
  return runSteps(correctedCheckpointsInSteps(analysis, transcriptPath));
}

/**
 * correctedCheckpoints as steps (a yield after every few moved turns), for a shell that works out the repair of
 * a checkpoint claiming tens of thousands of turns in time slices.
 */
export function* correctedCheckpointsInSteps(analysis: Analysis, transcriptPath: string): Generator<void, CorrectedCheckpoints, void> {
  const checkpoints: CorrectedCheckpoint[] = [];
  for (const checkpoint of analysis.checkpoints) checkpoints.push(yield* correctCheckpointInSteps(checkpoint));
  return { source: fileNameOf(transcriptPath), format: analysis.format, checkpoints };
}

/**
 * One checkpoint's repair in one line: "S1 (line 421, fail-closed): 380 of 420 claimed turns kept, 40 moved to
 * uncovered (40 claimed-missing)".
 */
export function describeCorrection(checkpoint: CorrectedCheckpoint): string {
  const claimed = checkpoint.claimedIds.length;
  const kept = claimed - checkpoint.moved.length;
  const head = `${checkpoint.summaryId} (line ${groupDigits(checkpoint.line)}, ${checkpoint.verdict}): `;
  if (checkpoint.moved.length === 0) return `${head}all ${countOf(claimed, 'claimed turn')} kept`;
  const byStatus = new Map<string, number>();
  for (const turn of checkpoint.moved) byStatus.set(turn.status, (byStatus.get(turn.status) ?? 0) + 1);
  const why = [...byStatus].map(([status, count]) => `${groupDigits(count)} ${status}`).join(', ');
  return `${head}${groupDigits(kept)} of ${countOf(claimed, 'claimed turn')} kept, ${groupDigits(checkpoint.moved.length)} moved to uncovered (${why})`;
}

/**
 * The name an export gets beside its transcript: `incident.jsonl` → `incident.corrected.jsonl` (canonical; a
 * `.jsonl.gz` too), `session.jsonl` → `session.jsonl.compaction-lens.json` (every other format).
 */
export function correctedExportName(transcriptName: string, format: FormatId): string {
  const name = fileNameOf(transcriptName);
  if (format !== 'canonical') return `${name}${SIDECAR_SUFFIX}`;
  return `${transcriptStem(name)}${CORRECTED_JSONL_SUFFIX}`;
}

/**
 * What an export to `outputName` writes: a `.jsonl` name gets the corrected canonical JSONL (canonical
 * transcripts only), any other name the sidecar document. An error message, for the user, when the two disagree.
 */
export function exportKindFor(format: FormatId, outputName: string): { kind: CorrectedExportKind } | { error: string } {
  if (!/\.jsonl$/i.test(outputName)) return { kind: 'sidecar' };
  if (format === 'canonical') return { kind: 'canonical-jsonl' };
  return {
    error:
      `a corrected JSONL transcript can only be written for a canonical transcript, and this one is ${format}. ` +
      `Name the output ${SIDECAR_SUFFIX} (or any name not ending in .jsonl) to write the sidecar document.`,
  };
}

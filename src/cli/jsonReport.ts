// The --json output: one document for all files, with the keys issue #2 lists and a few more. Keys are
// snake_case; every turn carries its status, reason, score against the threshold and its evidence, each turn on a
// line of its own. The document is streamed (jsonStream.ts): each file's as its analysis comes, each turn's JSON
// made as it is written, so its size is not limited.
import { TURN_STATUSES, type CheckpointAnalysis, type Evidence, type TurnResult, type TurnStatus } from '../core/model';
import type { FileReport } from './checkFiles';
import { JsonBytes, jsonChunks, jsonLineOf, mapLazily, padBelow, StreamedArray, StreamedObject, writeOut } from './jsonStream';
import { TurnSpill } from './turnSpill';
import { turnReason } from '../core/reweigh';

/** The indentation of each file's report in the document ({ "files": [ here ] }). */
const FILE_PAD = '    ';
/** The indentation of a checkpoint's keys (file, its checkpoints, a checkpoint), and of each of its turns. */
const CHECKPOINT_KEY_PAD = padBelow(FILE_PAD, 3);
const TURN_PAD = padBelow(FILE_PAD, 4);

export function evidenceJson(evidence: Evidence) {
  return {
    text: evidence.text,
    kind: evidence.kind,
    found: evidence.found,
    weight: evidence.weight,
    shared_by: evidence.sharedBy,
    from_call: evidence.fromCall ?? false,
    from_reasoning: evidence.fromReasoning ?? false,
    matched: evidence.matched ?? null,
  };
}

export function turnJson(turn: TurnResult) {
  return {
    id: turn.id,
    status: turn.status,
    line: turn.line,
    reason: turnReason(turn),
    score: turn.score ?? null,
    threshold: turn.threshold ?? null,
    evidence: turn.evidence.map(evidenceJson),
  };
}

/**
 * A checkpoint's turns, each on a line of its own without spaces: the document's bulk (about 3.5 KB a turn indented,
 * 1.6 KB so), a turn to a line for grep.
 */
const TURN_LAYOUT = { itemPerLine: true };

/**
 * A spill for `check --json`: it keeps each turn's text as the document has it, with the text between two turns,
 * so a checkpoint's turns array is its bytes between brackets (spilledTurns).
 */
export function jsonTurnSpill(onFallback?: (why: string) => void): TurnSpill {
  return new TurnSpill((turn) => jsonLineOf(turnJson(turn)), `,\n${TURN_PAD}`, onFallback);
}

/** Checkpoint `index`'s turns array from its spill, at its depth in the document, a turn to a line. */
function* spilledTurns(spill: TurnSpill, index: number): Generator<Buffer> {
  if (spill.countOf(index) === 0) {
    yield Buffer.from('[]');
    return;
  }
  yield Buffer.from(`[\n${TURN_PAD}`);
  yield* spill.bytes(index);
  yield Buffer.from(`\n${CHECKPOINT_KEY_PAD}]`);
}

/** All five statuses, zero when no turn has one. */
export function countsJson(counts: Partial<Record<TurnStatus, number>>): Record<TurnStatus, number> {
  return Object.fromEntries(TURN_STATUSES.map((status) => [status, counts[status] ?? 0])) as Record<TurnStatus, number>;
}

function checkpointJson(cp: CheckpointAnalysis, spill: TurnSpill | undefined): StreamedObject {
  // The turns' full results went to the file's spill as they were judged: the analysis kept none of them.
  if (cp.turnsWritten && !spill) throw new Error(`the turns of checkpoint ${cp.summaryId} were not kept for the report`);
  const turns =
    cp.turnsWritten && spill ? new JsonBytes(spilledTurns(spill, cp.index)) : new StreamedArray(mapLazily(cp.turns, turnJson), TURN_LAYOUT);
  return new StreamedObject({
    summary_id: cp.summaryId,
    line: cp.line,
    verdict: cp.verdict,
    reasons: cp.reasons,
    path: cp.path,
    prefix_tokens: cp.prefixTokens,
    prefix_token_source: cp.prefixTokenSource,
    recorded_prefix_tokens: cp.recordedPrefixTokens ?? null,
    summary_budget: cp.summaryBudget ?? null,
    budget_assumed: cp.budgetAssumed,
    ratio_floor: cp.ratioFloor,
    ceiling: cp.ceiling ?? null,
    over_ceiling: cp.overCeiling,
    summary_tokens: cp.summaryTokens,
    opaque: cp.opaque,
    unverifiable: cp.unverifiable ?? null,
    truncated: cp.truncation.truncated,
    truncation_reasons: cp.truncation.reasons,
    counts: countsJson(cp.counts),
    claimed: cp.claimedIds.length,
    claimed_missing: cp.claimedMissingRanges.map((range) => ({ from: range.from, to: range.to, count: range.count })),
    notes: cp.notes,
    turns,
    safe_covered: new StreamedArray(cp.safeCovered),
  });
}

function fileJson(report: FileReport): StreamedObject {
  if (report.analysis === undefined)
    return new StreamedObject({ path: report.path, error: report.error ?? 'unknown error', details: report.details });
  const { analysis } = report;
  return new StreamedObject({
    path: report.path,
    format: analysis.format,
    turns: analysis.turnCount,
    checkpoints: new StreamedArray(mapLazily(analysis.checkpoints, (cp) => checkpointJson(cp, report.spill))),
    problems: analysis.problems,
  });
}

/**
 * Writes the --json document of `reports` to `out` as each report comes (one file's analysis held at a time),
 * then a newline; `onReport` sees each report as it comes, before it is written. Rejects with the stream's error when `out`
 * fails (EPIPE: the reader went away), and stops there.
 */
export async function writeJsonReport(
  reports: AsyncIterable<FileReport> | Iterable<FileReport>,
  out: NodeJS.WritableStream,
  onReport?: (report: FileReport) => void,
): Promise<void> {
  let failed: Error | undefined;
  const onError = (error: Error) => (failed ??= error);
  out.on('error', onError);
  const write = async (text: string | Buffer) => {
    if (failed) throw failed;
    await writeOut(out, text);
  };
  try {
    // The text of JSON.stringify({ files }, null, 2), each file written at its depth.
    let first = true;
    for await (const report of reports) {
      try {
        onReport?.(report);
        await write(first ? `{\n  "files": [\n${FILE_PAD}` : `,\n${FILE_PAD}`);
        first = false;
        for (const chunk of jsonChunks(fileJson(report), { pad: FILE_PAD })) await write(chunk);
      } finally {
        report.spill?.dispose();
      }
    }
    await write(first ? '{\n  "files": []\n}\n' : '\n  ]\n}\n');
  } finally {
    out.off('error', onError);
  }
}

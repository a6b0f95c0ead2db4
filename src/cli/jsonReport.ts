// The --json output: one document for all files, with the keys issue #2 lists and a few more. Keys are
// snake_case; every turn carries its status, reason, score against the threshold and its evidence. The document
// is streamed (jsonStream.ts): each turn's JSON is made as it is written, so its size is not limited.
import { TURN_STATUSES, type CheckpointAnalysis, type Evidence, type TurnResult, type TurnStatus } from '../core/model';
import type { FileReport } from './checkFiles';
import { mapLazily, StreamedArray, StreamedObject } from './jsonStream';

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
    reason: turn.reason,
    score: turn.score ?? null,
    threshold: turn.threshold ?? null,
    evidence: turn.evidence.map(evidenceJson),
  };
}

/** All five statuses, zero when no turn has one. */
export function countsJson(counts: Partial<Record<TurnStatus, number>>): Record<TurnStatus, number> {
  return Object.fromEntries(TURN_STATUSES.map((status) => [status, counts[status] ?? 0])) as Record<TurnStatus, number>;
}

function checkpointJson(cp: CheckpointAnalysis): StreamedObject {
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
    turns: new StreamedArray(mapLazily(cp.turns, turnJson)),
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
    checkpoints: new StreamedArray(mapLazily(analysis.checkpoints, checkpointJson)),
    problems: analysis.problems,
  });
}

/** The --json document of `reports`, to be written with jsonStream's writeJson (or jsonChunks). */
export function jsonReport(reports: readonly FileReport[]): StreamedObject {
  return new StreamedObject({ files: new StreamedArray(mapLazily(reports, fileJson)) });
}

// The --json output: one document for all files, with the keys issue #2 lists and a few more.
import type { CheckpointAnalysis } from '../core/model';
import type { FileReport } from './checkFiles';

function checkpointJson(cp: CheckpointAnalysis) {
  return {
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
    counts: cp.counts,
    claimed: cp.claimedIds.length,
    claimed_missing: cp.claimedMissingRanges.map((range) => ({ from: range.from, to: range.to, count: range.count })),
    notes: cp.notes,
    turns: cp.turns.map((turn) => ({
      id: turn.id,
      status: turn.status,
      line: turn.line,
      reason: turn.reason,
      anchors: turn.anchors.map((anchor) => ({ anchor: anchor.anchor, kind: anchor.kind, found: anchor.found })),
    })),
    safe_covered: cp.safeCovered,
  };
}

export function jsonReport(reports: FileReport[]): string {
  const files = reports.map((report) => {
    if (report.analysis === undefined) return { path: report.path, error: report.error ?? 'unknown error' };
    const { analysis } = report;
    return {
      path: report.path,
      format: analysis.format,
      turns: analysis.turnCount,
      checkpoints: analysis.checkpoints.map(checkpointJson),
      problems: analysis.problems,
    };
  });
  return JSON.stringify({ files }, null, 2);
}

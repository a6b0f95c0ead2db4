// The --json output: one document for all files, with the keys issue #2 lists and a few more. Keys are
// snake_case; every turn carries its status, reason, score against the threshold and its evidence.
import { TURN_STATUSES, type CheckpointAnalysis, type Evidence, type TurnResult, type TurnStatus } from '../core/model';
import type { FileReport } from './checkFiles';
import { jsonText } from './terminalText';

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
    counts: countsJson(cp.counts),
    claimed: cp.claimedIds.length,
    claimed_missing: cp.claimedMissingRanges.map((range) => ({ from: range.from, to: range.to, count: range.count })),
    notes: cp.notes,
    turns: cp.turns.map(turnJson),
    safe_covered: cp.safeCovered,
  };
}

export function jsonReport(reports: FileReport[]): string {
  const files = reports.map((report) => {
    if (report.analysis === undefined)
      return { path: report.path, error: report.error ?? 'unknown error', ...(report.details ? { details: report.details } : {}) };
    const { analysis } = report;
    return {
      path: report.path,
      format: analysis.format,
      turns: analysis.turnCount,
      checkpoints: analysis.checkpoints.map(checkpointJson),
      problems: analysis.problems,
    };
  });
  return jsonText(JSON.stringify({ files }, null, 2));
}

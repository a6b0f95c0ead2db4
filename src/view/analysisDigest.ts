// The digest of an analysis (core/model.ts AnalysisDigest): per checkpoint its summary id, lines, verdict and
// reasons, turns per status, whether its summary looks cut off, why coverage could not be checked, and its
// claimed-missing runs with their lines. Made before a full analysis is let go, so the checkpoints tree and the
// verdict counts can still show the file. Pure: no vscode import.
import type { Analysis, AnalysisDigest, CheckpointAnalysis, CheckpointDigest, LinedIdRange, Transcript } from '../core/model';
import { whyUnverifiable } from './timelineData';

/**
 * Each checkpoint's digest, kept with the checkpoint analysis it was made from: a re-analysis after an append
 * gives back the same CheckpointAnalysis for a checkpoint the append cannot change (its turns, and so its runs'
 * lines, are as they were), and its digest is not made again.
 */
const made = new WeakMap<CheckpointAnalysis, CheckpointDigest>();

export function digestAnalysis(transcript: Pick<Transcript, 'turns'>, analysis: Analysis): AnalysisDigest {
  const fresh = analysis.checkpoints.filter((checkpoint) => !made.has(checkpoint));
  // The first turn of each id a claimed-missing run starts or ends at (ids name turns as turnIndexOfId does).
  const wanted = new Set<string>();
  for (const checkpoint of fresh) {
    for (const range of checkpoint.claimedMissingRanges) wanted.add(String(range.from)).add(String(range.to));
  }
  const firstOf = new Map<string, number>();
  if (wanted.size > 0) {
    transcript.turns.forEach((turn, index) => {
      const key = String(turn.id);
      if (wanted.has(key) && !firstOf.has(key)) firstOf.set(key, index);
    });
  }
  const lineOf = (id: LinedIdRange['from'], end: boolean): number => {
    const index = firstOf.get(String(id));
    const span = index === undefined ? undefined : transcript.turns[index].span;
    return span ? (end ? span.endLine : span.startLine) : 0;
  };
  for (const checkpoint of fresh) made.set(checkpoint, digestCheckpoint(checkpoint, lineOf));
  const checkpoints = analysis.checkpoints.map((checkpoint) => made.get(checkpoint)!);
  return { format: analysis.format, turnCount: transcript.turns.length, checkpoints };
}

function digestCheckpoint(checkpoint: CheckpointAnalysis, lineOf: (id: LinedIdRange['from'], end: boolean) => number): CheckpointDigest {
  return {
    summaryId: checkpoint.summaryId,
    line: checkpoint.line,
    endLine: checkpoint.endLine,
    verdict: checkpoint.verdict,
    reasons: checkpoint.reasons,
    counts: { ...checkpoint.counts },
    truncation: { truncated: checkpoint.truncation.truncated },
    whyUnverifiable: whyUnverifiable(checkpoint),
    claimedMissingRanges: checkpoint.claimedMissingRanges.map((range) => ({
      from: range.from,
      to: range.to,
      count: range.count,
      startLine: lineOf(range.from, false),
      endLine: lineOf(range.to, true),
    })),
  };
}

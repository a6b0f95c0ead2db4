// A checkpoint's judgement (JudgedTurns) in parts that can cross to another thread and back. A judging worker
// (node/judgeWorker.ts) sends, for each checkpoint it judged, the results the checkpoint does not share with
// others (an unclaimed turn's result is one object for every checkpoint, core/analyze.ts unclaimedResult), then
// its columns (JudgedHead). The shell rebuilds the judgement from them and its own turns, and keeps it in its
// JudgementCache under the key the analysis asks with, so the analysis takes it as if judgeAhead had made it
// there. Pure.
import { clampedTurnsBefore, coverageThresholdOf, unclaimedResult } from './analyze';
import type { JudgementCache } from './judgementCache';
import { TURN_STATUSES, type AnalysisOptions, type JudgedTurns, type Transcript, type TurnResult } from './model';

/** The status code (JudgedTurns.statuses) of an uncovered turn. */
const UNCOVERED = TURN_STATUSES.indexOf('uncovered');

/** What a checkpoint's judgement is besides its results: its place and columns (see JudgedTurns). */
export interface JudgedHead {
  /** The checkpoint's index in the transcript. */
  index: number;
  /** How many turns precede it: the judgement's results, shared and own. */
  before: number;
  from: number;
  statuses: Uint8Array;
  marks: Uint8Array;
  rules: Uint8Array;
  /** How many own results were sent before this head. */
  own: number;
}

/**
 * Rebuilds checkpoint `head.index`'s judgement from its head and own results (in log order), with this thread's
 * turns for the results it shares, and keeps it in `judgements` for an analysis of `transcript` with `options`
 * to take. False, keeping nothing, when the parts do not fit the transcript (another snapshot's, or damaged).
 */
export function keepJudged(
  transcript: Transcript,
  options: Pick<AnalysisOptions, 'coverageThreshold'>,
  judgements: JudgementCache,
  head: JudgedHead,
  own: readonly TurnResult[],
): boolean {
  const { turns, checkpoints } = transcript;
  const checkpoint = checkpoints[head.index];
  if (!checkpoint || typeof checkpoint !== 'object') return false;
  const before = clampedTurnsBefore(checkpoint, turns.length);
  if (before !== head.before || own.length !== head.own || head.from + head.statuses.length > before) return false;
  if (head.marks.length !== head.statuses.length || head.rules.length !== head.statuses.length) return false;
  const shared = judgements.unclaimedOf(turns);
  const reporting = Array.isArray(checkpoint.reportedIds);
  const { from, statuses, marks, rules } = head;
  const results: TurnResult[] = [];
  let k = 0;
  for (let i = 0; i < before; i++) {
    const next = own[k];
    if (next !== undefined && next.index === i) {
      if (next.id !== turns[i].id) return false;
      results.push(next);
      k++;
    } else {
      // A result not sent is an unclaimed turn's, which only a checkpoint without a report shares.
      const inColumns = i >= from && i < from + statuses.length;
      if (reporting || (inColumns && (statuses[i - from] !== UNCOVERED || marks[i - from] !== 0))) return false;
      results.push(unclaimedResult(shared, i, turns[i]));
    }
  }
  if (k !== own.length) return false;
  // `found` is what a judgement without its results keeps (a turn sink's): this one has them.
  const judged: JudgedTurns = { results, from, statuses, marks, rules, found: [] };
  const key = { turns, checkpoint, before, threshold: coverageThresholdOf(options.coverageThreshold), sink: undefined };
  judgements.set(head.index, key, judged);
  return true;
}

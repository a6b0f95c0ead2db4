// A checkpoint's judgement (JudgedTurns) in parts that can cross to another thread and back. A judging worker
// (node/judgeWorker.ts) sends, for each checkpoint it judged, the results the checkpoint does not share with
// others (an unclaimed turn's result is one object for every checkpoint, core/analyze.ts unclaimedResult), then
// its columns (JudgedHead). The results go in groups (ResultsPart), each piece of evidence once per job: evidence
// alike is one object in the worker (core/evidenceShare.ts), and sent as objects each group would get its own
// copies on the other side. The shell rebuilds the judgement from them and its own turns, and keeps it in its
// JudgementCache under the key the analysis asks with, so the analysis takes it as if judgeAhead had made it
// there. Pure.
import { clampedTurnsBefore, coverageThresholdOf, unclaimedResult } from './analyze';
import type { JudgementCache } from './judgementCache';
import { TURN_STATUSES, type AnalysisOptions, type Evidence, type JudgedTurns, type Transcript, type TurnResult } from './model';

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

/** A group of a checkpoint's own results as they cross, with their evidence by number. */
export interface ResultsPart {
  /** The checkpoint's index in the transcript. */
  index: number;
  /** The results, in log order, each with an empty evidence list (one list for the part) in place of its own. */
  results: TurnResult[];
  /** How many pieces of evidence each result holds. */
  evidenceCounts: Uint32Array;
  /** Each result's evidence in turn, by number: its place in the job's evidence, as first sent. */
  evidenceIds: Uint32Array;
  /** The evidence first sent with this part, numbered on from the evidence sent before it in the job. */
  evidence: Evidence[];
}

const NO_EVIDENCE: Evidence[] = [];

/**
 * Makes the ResultsParts of one job, numbering each piece of evidence the first time it is sent. Keeps the
 * evidence it numbered (as the job's judgements do) until it is let go with the job.
 */
export class ResultsPacker {
  private readonly numbers = new Map<Evidence, number>();

  part(index: number, results: readonly TurnResult[]): ResultsPart {
    let total = 0;
    for (const result of results) total += result.evidence.length;
    const evidenceCounts = new Uint32Array(results.length);
    const evidenceIds = new Uint32Array(total);
    const evidence: Evidence[] = [];
    const sent: TurnResult[] = [];
    let k = 0;
    for (let r = 0; r < results.length; r++) {
      const result = results[r];
      evidenceCounts[r] = result.evidence.length;
      for (const piece of result.evidence) {
        let number = this.numbers.get(piece);
        if (number === undefined) {
          number = this.numbers.size;
          this.numbers.set(piece, number);
          evidence.push(piece);
        }
        evidenceIds[k++] = number;
      }
      sent.push({ ...result, evidence: NO_EVIDENCE });
    }
    return { index, results: sent, evidenceCounts, evidenceIds, evidence };
  }
}

/** Takes the ResultsParts of one job, in the order they were made, and gives each part's results with their evidence. */
export class ResultsUnpacker {
  private readonly evidence: Evidence[] = [];

  /** The part's results with their evidence put back (the results are the part's own objects), or undefined when the part does not fit. */
  take(part: ResultsPart): TurnResult[] | undefined {
    const { results, evidenceCounts, evidenceIds } = part;
    for (const piece of part.evidence) this.evidence.push(piece);
    if (evidenceCounts.length !== results.length) return undefined;
    let k = 0;
    for (let r = 0; r < results.length; r++) {
      const count = evidenceCounts[r];
      if (k + count > evidenceIds.length) return undefined;
      const list: Evidence[] = [];
      for (let i = 0; i < count; i++) {
        const piece = this.evidence[evidenceIds[k++]];
        if (piece === undefined) return undefined;
        list.push(piece);
      }
      results[r].evidence = list;
    }
    return k === evidenceIds.length ? results : undefined;
  }
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

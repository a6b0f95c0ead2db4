// analyze(transcript, options): the non-throwing checkpoint analysis. For every checkpoint it gives each earlier
// turn a status (covered / claimed-missing / uncovered, or the neutral nothing-to-check / unverifiable) with the
// weighted evidence (core/evidence.ts), the prefix and summary sizes against
// the ceiling, the truncation tells, the verdict of the note's decision boundary and the safe pointer set —
// and explains in sentences where the note's reference API (reference.ts) would raise. textsToCount says which
// texts an analysis will tokenize, so a shell can count them elsewhere (worker threads) beforehand. With a
// CheckpointMemo (core/checkpointMemo.ts) a re-analysis reuses, as they are, the checkpoints nothing before
// them changed in, so analysing a file grown by appended lines costs about the appended lines, and takes the
// turns as judged of a checkpoint analysed with other options (re-weighed for another threshold: reweigh.ts).
// The turns' judgements (status, evidence, reason) do not depend on the token counts: judgeAhead makes them, in
// steps, while a shell counts the tokens elsewhere, and the analyses of that snapshot take them from a
// JudgementCache.
// analyzeInSteps is analyze in small steps (a generator), so a shell can let its event loop run between them.
import { groupDigits } from './displayText';
import { CheckpointMemo, type KeptAnalysis, type MemoInputs, type TurnIndexes } from './checkpointMemo';
import { DEFAULT_COVERAGE_THRESHOLD, judge, type Sharing, type TurnPieces } from './evidence';
import { EvidenceCache, EvidenceSlots } from './evidenceCache';
import { StepPace } from './stepPace';
import { evidenceTable, type EvidenceTable } from './evidenceShare';
import { JudgementCache, type JudgementKey } from './judgementCache';
import { locatesForNextStep } from './locatorSearch';
import { TwiceFilter } from './twiceFilter';
import { addNewHashes, UnitForms, visitFormsLetThrough } from './unitForms';
import { runSteps } from './steps';
import { ProseMemo } from './proseMemo';
import { reweighed, weighedStatus } from './reweigh';
import { SummaryMatcher, verbatimPassage } from './summaryMatcher';
import { rangesFromIndexes } from './idRanges';
import type {
  Analysis,
  AnalysisOptions,
  Checkpoint,
  CheckpointAnalysis,
  Evidence,
  Problem,
  TokenSource,
  Transcript,
  Turn,
  TurnId,
  TurnResult,
  TurnStatus,
  Verdict,
  TokenCache,
  TurnSink,
  JudgedTurns,
  TurnPlaces,
} from './model';
import { JUDGED_CLAIMED, JUDGED_REPORTED, TURN_STATUSES } from './model';
import { COMPRESSION_RATIO_LOW } from './reference';
import { DEFAULT_NEAR_BUDGET_FRACTION, detectTruncation } from './truncation';

const REASON_UNCLAIMED = 'not in the pointer set: kept verbatim, or read from the raw log when needed';
const REASON_REPORTED = 'reported consumed by the summariser';
const REASON_NOT_REPORTED = 'claimed by the pointer set, but the summariser did not report consuming it';
const REASON_OPAQUE = 'the summary is encrypted: whether it carries this turn cannot be checked';
const REASON_EMPTY = 'the summary is empty: it carries nothing of this turn';

/** Everything shared by the checkpoints of one analysis. */
interface Context {
  turns: readonly Turn[];
  ratioFloor: number;
  threshold: number;
  nearBudgetFraction: number;
  countTokens: (text: string) => number;
  tokenCache: TokenCache;
  summaryTokens: Map<string, number>;
  /** Ids claimed by any checkpoint: only these turns are tokenized. */
  claimedByAny: TurnIndexes['claimedByAny'];
  /**
   * Each turn's evidence pieces by what they are computed from: the caller's (kept between analyses) or one for
   * this analysis. Bounded: pieces it let go are worked out again when needed (turnPieces is pure), so an
   * analysis does not hold every claimed turn's pieces from the sharing counts to the turn's judgement.
   */
  evidenceCache: EvidenceCache;
  /** For each turn whose calls are answered by result turns of their own, the index of the first such result. */
  firstAnswer: TurnIndexes['firstAnswer'];
  /** Index of each turn id (first occurrence). */
  indexOfId: TurnIndexes['indexOfId'];
  /** The index of the first turn with the id of the turn at an index. */
  firstOf: TurnIndexes['firstOf'];
  problems: Problem[];
  /** The caller's memo, or one for this analysis alone. */
  memo: CheckpointMemo;
  /** Token counts that failed for a turn shown (not claimed) by some checkpoint; such an analysis is not kept. */
  countFailures: number;
  /** The turns' judgements made ahead for this snapshot, and where this analysis keeps the ones it makes. */
  judgements?: JudgementCache;
  /** judgeAhead's progress: turns judged of the total, reported every STEP_TURNS turns. */
  judging?: {
    done: number;
    total: number;
    report: (done: number, total: number) => void;
    onResult?: (index: number, result: TurnResult) => void;
  };
  /** Where the turns' full results go as they are judged; the checkpoints then keep them slimmed. */
  turnSink?: TurnSink;
  /**
   * Each turn's counted token figure by index (UNCOUNTED until asked), when more than one checkpoint will ask:
   * the token cache is keyed by text, and looking up every earlier turn's text for each of 223 checkpoints took
   * 1.6 s of a 104 MB message array's analysis. Four bytes a turn, made with the first count asked for.
   */
  countedTurns: Uint32Array | undefined;
  /** Whether countedTurns is worth making: the transcript has more than one checkpoint. */
  keepsCounts: boolean;
  /** Pieces of evidence piecesOf has given in this analysis: a running total of work, for `pace`. */
  piecesMet: number;
  /** Characters of turn text the judging read through (textMet): a running total of work, for `pace`. */
  charsJudged: number;
  /**
   * When the loops that may work out evidence yield: one pace for all of them, so the work left over from one loop
   * counts in the next one's first step.
   */
  pace: StepPace;
  /** Each turn's prose words for verbatimPassage, kept once a second checkpoint asks (made with keepsCounts). */
  prose: ProseMemo | undefined;
  /**
   * Where each turn's pieces were found in the evidence cache, to ask again by index: a checkpoint's sharing counts
   * and judging ask for each claimed turn's pieces three times, and the next checkpoints again (piecesOf says when;
   * made when first asked, eight bytes and one for each turn before the farthest checkpoint, `reach`).
   */
  evidenceSlots: EvidenceSlots | undefined;
  /** How many leading turns precede some checkpoint (reachOf): no checkpoint judges a turn at or past it. */
  reach: number;
  /**
   * One result per turn for every checkpoint that does not claim it (uncovered, unmarked: the same for each such
   * checkpoint), by the turn's index: as judged (`judged`, its recorded token figure) and as shown (`shown`, with
   * the figure the analysis gives it). A file of many compactions kept a result of its own per checkpoint for
   * every earlier turn: 5M results, 1.2 GB, for a 104 MB message array with 223 summaries.
   */
  unclaimed: { judged: TurnResult[]; shown: TurnResult[] };
}

/**
 * The loops over every turn that do little per turn yield about this often. Those that may work out a turn's
 * evidence (the judgements, the sharing counts) yield after a step of a few units' work (StepPace): in
 * steps of this many turns, a real session's sharing counts held the event loop 350–450 ms (docs/performance-history.md,
 * "A yield per unit in the sharing counts").
 */
const STEP_TURNS = 1024;

/** Analyses every checkpoint of a transcript. Never throws: failures become problems. */
export function analyze(transcript: Transcript, options: AnalysisOptions): Analysis {
  return runSteps(analyzeInSteps(transcript, options));
}

/**
 * analyze, in steps: the generator yields between turns (about every turn's judgement) and returns the
 * analysis, so a shell can run it in time slices. Never throws.
 */
export function* analyzeInSteps(transcript: Transcript, options: AnalysisOptions): Generator<void, Analysis, void> {
  const problems: Problem[] = Array.isArray(transcript?.problems) ? [...transcript.problems] : [];
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  const results: CheckpointAnalysis[] = [];
  const analysis: Analysis = {
    format: transcript?.format ?? 'canonical',
    turnCount: turns.length,
    checkpoints: results,
    problems,
  };

  let ctx: Context;
  try {
    ctx = yield* contextInSteps(turns, checkpoints, options, problems);
  } catch (err) {
    problems.push({ line: 0, severity: 'error', message: `could not analyse the transcript: ${messageOf(err)}` });
    return analysis;
  }

  let complete = true;
  for (const [index, cp] of checkpoints.entries()) {
    try {
      // With a turn sink every checkpoint is judged (a kept analysis would never reach the sink) and none is kept
      // (its turns are slimmed): the memo only indexes the turns.
      const reused = ctx.turnSink ? undefined : reusable(cp, index, ctx);
      if (reused) {
        results.push(reused.analysis);
        continue;
      }
      const failuresBefore = ctx.countFailures;
      const { analysis: result, judged } = yield* analyzeCheckpoint(cp, index, ctx);
      results.push(result);
      if (ctx.countFailures === failuresBefore && !ctx.turnSink) keep(cp, index, result, judged, ctx);
      else complete = false;
    } catch (err) {
      complete = false;
      const line = lineOf(cp);
      const name = typeof cp?.summaryId === 'string' ? cp.summaryId : `#${index + 1}`;
      problems.push({
        line,
        severity: 'error',
        message: `could not analyse checkpoint ${name}: ${messageOf(err)}; the other checkpoints are still analysed`,
      });
      results.push(failedCheckpoint(cp, index, name, messageOf(err), ctx.ratioFloor));
    }
  }
  // Every claimed turn before the farthest checkpoint was counted into the token cache (or was before).
  if (complete) ctx.memo.markCounted(ctx.tokenCache, ctx.reach);
  const written = results.reduce((most, r) => Math.max(most, r.turnsBefore ?? 0), 0);
  if (results.some((r) => r.turnsWritten)) analysis.turnPlaces = new PlacesOfTurns(turns, written);
  return analysis;
}

/**
 * The ids and lines of the first `count` turns, as their results would have them (Analysis.turnPlaces), read from
 * the turns when asked: a turn is never modified once returned, so they are what its result had. A class, so two
 * analyses of the same turns compare equal (their methods are the prototype's, not closures of their own).
 */
class PlacesOfTurns implements TurnPlaces {
  constructor(
    private readonly turns: readonly Turn[],
    readonly count: number,
  ) {}

  id(index: number): TurnId {
    return this.turns[index].id;
  }

  line(index: number): number {
    return this.turns[index].span?.startLine ?? 0;
  }

  endLine(index: number): number {
    const span = this.turns[index].span; // read once: a turn whose text is on disk makes its span when asked
    return span?.endLine ?? span?.startLine ?? 0;
  }
}

/**
 * The analysis the memo kept for this checkpoint, when it is what analysing it now would give: the same record
 * and the same turns before it, with the same claims among them (the memo's sync sees to those), and the same
 * options, token cache and summary count. Never throws.
 */
function reusable(cp: Checkpoint, index: number, ctx: Context): { analysis: CheckpointAnalysis } | undefined {
  const kept = ctx.memo.kept(index);
  if (!kept || !cp || typeof cp !== 'object' || !madeAlike(kept.inputs, ctx)) return undefined;
  const { inputs } = kept;
  const { used, valid } = clampTurnsBefore(cp, ctx.turns.length);
  if (!valid || used !== kept.before) return undefined;
  try {
    if (checkpointSummaryTokens(ctx, cp) !== inputs.summaryTokens) return undefined;
  } catch {
    return undefined;
  }
  return kept;
}

/**
 * Whether a kept analysis was made with this analysis' options and token cache: then the analysis reuses it
 * when its position and summary count are the same too (reusable). (Its judgement serves more: keptJudgement.)
 */
function madeAlike(inputs: MemoInputs, ctx: Context): boolean {
  return (
    inputs.tokenCache === ctx.tokenCache &&
    inputs.ratioFloor === ctx.ratioFloor &&
    inputs.threshold === ctx.threshold &&
    inputs.nearBudgetFraction === ctx.nearBudgetFraction
  );
}

/**
 * The turns as judged that the memo kept for this checkpoint with its last analysis, when they are what judging it
 * now would give: the same record, turns and claims (the memo's sync sees to those), the same prefix and the same
 * coverage threshold, whatever the token counts, ratio floor or near-budget fraction. Never with a turn sink (its
 * results are slimmed, and the memo keeps nothing then).
 */
function keptJudgement(ctx: Context, index: number, before: number): JudgedTurns | undefined {
  const kept = ctx.memo.kept(index);
  if (!kept || ctx.turnSink !== undefined || kept.before !== before || kept.inputs.threshold !== ctx.threshold) return undefined;
  return kept.judged;
}

/**
 * The turns as judged that the memo kept for this checkpoint at another coverage threshold, when re-weighing them
 * gives what judging it now would (reweigh.ts): the same record, turns, claims and prefix, and results kept (never
 * with a turn sink).
 */
function judgementToReweigh(ctx: Context, index: number, before: number): JudgedTurns | undefined {
  const kept = ctx.memo.kept(index);
  if (!kept || ctx.turnSink !== undefined || kept.before !== before || kept.inputs.threshold === ctx.threshold) return undefined;
  return kept.judged.results !== undefined ? kept.judged : undefined;
}

/** The memo's judgement of this checkpoint at another threshold, re-weighed at this one (in steps), if it has one. */
function* reweighedFromMemo(ctx: Context, index: number, before: number): Generator<void, JudgedTurns | undefined, void> {
  const old = judgementToReweigh(ctx, index, before);
  return old ? yield* reweighed(old, ctx.threshold) : undefined;
}

/** Keeps a checkpoint's analysis in the memo for the next analysis of this file (when its position is valid). */
function keep(cp: Checkpoint, index: number, analysis: CheckpointAnalysis, judged: JudgedTurns, ctx: Context): void {
  const { used, valid } = clampTurnsBefore(cp, ctx.turns.length);
  if (!valid) return;
  ctx.memo.keep(index, {
    analysis,
    // The results as shown (each with its token figure) stand for the judged ones: the same statuses, evidence and
    // reasons, so the memo keeps one object per turn, not two, and an analysis whose figures are the same shows them
    // as they are (shownResult) rather than copying each again.
    judged: judged.results === undefined ? judged : { ...judged, results: analysis.turns },
    before: used,
    inputs: {
      ratioFloor: ctx.ratioFloor,
      threshold: ctx.threshold,
      nearBudgetFraction: ctx.nearBudgetFraction,
      tokenCache: ctx.tokenCache,
      summaryTokens: analysis.summaryTokens,
    },
  });
}

/** How many leading turns precede some checkpoint (the farthest one's position, clamped). */
function reachOf(checkpoints: readonly Checkpoint[], total: number): number {
  let reach = 0;
  for (const cp of checkpoints) {
    if (cp && typeof cp === 'object') reach = Math.max(reach, clampTurnsBefore(cp, total).used);
  }
  return reach;
}

/** The context of one analysis, after syncing the memo (in steps) with the transcript. */
function* contextInSteps(
  turns: readonly Turn[],
  checkpoints: readonly Checkpoint[],
  options: AnalysisOptions,
  problems: Problem[],
): Generator<void, Context, void> {
  const ratio = options?.ratioFloor;
  const near = options?.nearBudgetFraction;
  const count = options?.countTokens;
  const threshold = options?.coverageThreshold;
  const turnSink = sinkOf(options?.turnSink);
  const memo = memoOf(options?.checkpointMemo);
  const judgements = options?.judgements instanceof JudgementCache ? options.judgements : undefined;
  const { firstAnswer, indexOfId, firstOf, claimedByAny } = yield* memo.syncInSteps(turns, checkpoints);
  const evidenceCache = options?.evidenceCache instanceof EvidenceCache ? options.evidenceCache : new EvidenceCache();
  return {
    turns,
    ratioFloor: typeof ratio === 'number' && Number.isFinite(ratio) && ratio > 0 ? ratio : COMPRESSION_RATIO_LOW,
    threshold: coverageThresholdOf(threshold),
    nearBudgetFraction: typeof near === 'number' && Number.isFinite(near) && near >= 0 ? near : DEFAULT_NEAR_BUDGET_FRACTION,
    countTokens:
      typeof count === 'function'
        ? count
        : () => {
            throw new Error('no token counter was given (options.countTokens)');
          },
    tokenCache: isTokenCache(options?.tokenCache) ? options.tokenCache : new Map(),
    summaryTokens: new Map(),
    claimedByAny,
    evidenceCache,
    firstAnswer,
    indexOfId,
    firstOf,
    problems,
    memo,
    countFailures: 0,
    judgements,
    turnSink,
    unclaimed: { judged: judgements?.unclaimedOf(turns) ?? [], shown: [] },
    countedTurns: undefined,
    keepsCounts: checkpoints.length > 1,
    piecesMet: 0,
    charsJudged: 0,
    pace: new StepPace(0, evidenceCache.charsWorked),
    prose: checkpoints.length > 1 ? new ProseMemo(turns.length) : undefined,
    evidenceSlots: undefined,
    reach: reachOf(checkpoints, turns.length),
  };
}

/** The coverage threshold an analysis uses for the option given (AnalysisOptions.coverageThreshold). */
export function coverageThresholdOf(threshold: unknown): number {
  return typeof threshold === 'number' && Number.isFinite(threshold) && threshold > 0 ? threshold : DEFAULT_COVERAGE_THRESHOLD;
}

/** The caller's turn sink when it is one (both methods there). */
function sinkOf(sink: unknown): TurnSink | undefined {
  if (typeof sink !== 'object' || sink === null) return undefined;
  const { begin, turn } = sink as Partial<TurnSink>;
  return typeof begin === 'function' && typeof turn === 'function' ? (sink as TurnSink) : undefined;
}

/** The caller's memo, or a new one that lives as long as this analysis. */
function memoOf(memo: unknown): CheckpointMemo {
  return memo instanceof CheckpointMemo ? memo : new CheckpointMemo();
}

/**
 * Judges the turns of every checkpoint that `options.checkpointMemo` does not hold into `options.judgements`, in
 * steps (the generator yields between turns), for the analyses of this snapshot to take: a shell runs it while
 * the tokens are counted elsewhere. Needs no token counts. Never throws: a checkpoint that cannot be judged is
 * left to the analysis, which reports it.
 */
export function* judgeAhead(
  transcript: Transcript,
  options: Omit<AnalysisOptions, 'countTokens' | 'judgements'> & {
    judgements: JudgementCache;
    /** Turns judged of those to judge: at the start, about every STEP_TURNS turns, and at the end. */
    onProgress?: (done: number, total: number) => void;
    /** Judge only the checkpoints at these indexes (of those it would judge). */
    only?: ReadonlySet<number>;
    /**
     * Each result of a checkpoint it judges, as it is made, in turn order: a shell may send them on before the
     * checkpoint is judged whole. A checkpoint whose judging fails partway may have given some.
     */
    onResult?: (index: number, result: TurnResult) => void;
  },
): Generator<void, void, void> {
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  let ctx: Context;
  try {
    const countTokens = (): number => {
      throw new Error('judging counts no tokens');
    };
    ctx = yield* contextInSteps(turns, checkpoints, { ...options, countTokens }, []);
  } catch {
    return; // the analysis reports it
  }
  const toJudge = checkpoints.map((cp, index) => judgedAhead(ctx, cp, index) && (options.only === undefined || options.only.has(index)));
  const report = options.onProgress ?? ((): void => undefined);
  const total = checkpoints.reduce((sum, cp, index) => sum + (toJudge[index] ? clampTurnsBefore(cp, turns.length).used : 0), 0);
  ctx.judging = { done: 0, total, report, onResult: options.onResult };
  report(0, total);
  for (const [index, cp] of checkpoints.entries()) {
    if (toJudge[index] || cp === null || typeof cp !== 'object') continue;
    // Held by the memo (re-weighed when it was judged at another threshold): handed to this snapshot's other
    // analyses (the bounds' one has no memo) as if judged ahead.
    const before = clampTurnsBefore(cp, turns.length).used;
    const kept = keptJudgement(ctx, index, before) ?? (yield* reweighedFromMemo(ctx, index, before));
    if (kept) options.judgements.set(index, judgementKey(ctx, cp, before), kept);
  }
  for (const [index, cp] of checkpoints.entries()) {
    if (!toJudge[index]) continue;
    try {
      yield* judgementOf(cp, index, ctx, clampTurnsBefore(cp, turns.length).used);
    } catch {
      // the analysis reports it for this checkpoint
    }
  }
  report(total, total);
}

/**
 * Whether judgeAhead judges the checkpoint: every one with a turn sink, else those whose judgement the memo does
 * not hold, at this threshold (keptJudgement) or another (judgementToReweigh).
 */
function judgedAhead(ctx: Context, cp: Checkpoint, index: number): boolean {
  if (cp === null || typeof cp !== 'object') return false;
  const before = clampTurnsBefore(cp, ctx.turns.length).used;
  return keptJudgement(ctx, index, before) === undefined && judgementToReweigh(ctx, index, before) === undefined;
}

/**
 * The checkpoints judgeAhead would judge with these options (by index), with how many turns precede each and how
 * many ids it claims (at most that many turns: the judging's work is the claimed turns', an unclaimed turn's result
 * being one for every checkpoint): what a shell may have judged elsewhere (node/judgeInWorker.ts) before judgeAhead
 * judges the rest. In steps (it syncs the memo). Never throws: when the context cannot be made, none.
 */
export function* checkpointsToJudge(
  transcript: Transcript,
  options: Omit<AnalysisOptions, 'countTokens' | 'judgements'>,
): Generator<void, { index: number; before: number; claimed: number }[], void> {
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  let ctx: Context;
  try {
    ctx = yield* contextInSteps(turns, checkpoints, { ...options, countTokens: () => 0 }, []);
  } catch {
    return [];
  }
  const plan: { index: number; before: number; claimed: number }[] = [];
  for (const [index, cp] of checkpoints.entries()) {
    if (!judgedAhead(ctx, cp, index)) continue;
    const before = clampTurnsBefore(cp, turns.length).used;
    plan.push({ index, before, claimed: Math.min(before, Array.isArray(cp.claimedIds) ? cp.claimedIds.length : 0) });
  }
  return plan;
}

/** The turn's own token count when the transcript recorded a usable one. */
function recordedTurnTokens(turn: Turn): number | undefined {
  return typeof turn.tokens === 'number' && Number.isFinite(turn.tokens) && turn.tokens >= 0 ? turn.tokens : undefined;
}

/** The summary's token count when the transcript recorded a usable one; otherwise the summary is counted. */
function recordedSummaryTokens(cp: Checkpoint): number | undefined {
  const n = cp.recordedSummaryTokens;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The text analyze hands the token counter for a summary (a missing summary counts as ''). */
function summaryText(cp: Checkpoint): string {
  return typeof cp.summary === 'string' ? cp.summary : '';
}

/** How many turns precede the checkpoint in an analysis of `total` turns (its position, clamped into them). */
export function clampedTurnsBefore(cp: Checkpoint, total: number): number {
  return clampTurnsBefore(cp, total).used;
}

/** The checkpoint's position clamped into the transcript; `valid` is false when it had to be clamped. */
function clampTurnsBefore(cp: Checkpoint, total: number): { used: number; valid: boolean } {
  const n = cp.turnsBefore;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= total) return { used: n, valid: true };
  const used = typeof n === 'number' && Number.isFinite(n) ? Math.min(total, Math.max(0, Math.floor(n))) : total;
  return { used, valid: false };
}

/**
 * The texts analyze(transcript, { tokenCache }) will hand its token counter: the turns some checkpoint claims
 * that precede a checkpoint, have no recorded count and whose text is not in `tokenCache` (each text once, in log order),
 * and the summaries with no recorded count (each distinct text once; encrypted summaries are counted too).
 * A shell counts these beforehand — e.g. in worker threads — puts the turns' counts into the cache and serves
 * the summaries' counts from a map; analyze then calls countTokens for nothing else. Pure; never throws.
 */
export function textsToCount(
  transcript: Transcript,
  tokenCache?: TokenCache,
  checkpointMemo?: CheckpointMemo,
): { turns: Turn[]; summaries: string[] } {
  return runSteps(textsToCountInSteps(transcript, tokenCache, checkpointMemo));
}

/**
 * textsToCount, in steps (the generator yields about every STEP_TURNS turns), for a shell's time slices.
 * `keepRepeats`: a turn whose text repeats an earlier one's is named too, so no set of the texts seen is made —
 * for turns whose texts are read back from disk, where that set would hold each of them in memory; whoever counts
 * them then skips a text already counted.
 */
export function* textsToCountInSteps(
  transcript: Transcript,
  tokenCache?: TokenCache,
  checkpointMemo?: CheckpointMemo,
  keepRepeats = false,
): Generator<void, { turns: Turn[]; summaries: string[] }, void> {
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  const cache = isTokenCache(tokenCache) ? tokenCache : undefined;
  const memo = memoOf(checkpointMemo);
  const indexes = yield* memo.syncInSteps(turns, checkpoints);
  // The turns an earlier analysis with this cache counted (or found counted) need no look.
  const start = memo.countedBefore(cache);
  const summaries = new Set<string>();
  for (const cp of checkpoints) {
    if (!cp || typeof cp !== 'object') continue; // analyze fails such a checkpoint before counting anything
    if (recordedSummaryTokens(cp) === undefined) summaries.add(summaryText(cp));
  }
  const reach = reachOf(checkpoints, turns.length); // turns[0..reach-1] precede some checkpoint
  const seen = new Set<string>();
  const counted: Turn[] = [];
  for (let i = start; i < reach; i++) {
    if (i % STEP_TURNS === 0) yield;
    const turn = turns[i];
    if (!turn || typeof turn !== 'object') continue;
    if (!needsCount(turn, i, indexes)) continue; // asked first: a text may be read back from disk
    const text = turnText(turn);
    if (cache?.has(text)) continue;
    if (!keepRepeats) {
      if (seen.has(text)) continue;
      seen.add(text);
    }
    counted.push(turn);
  }
  return { turns: counted, summaries: [...summaries] };
}

/** Whether `value` can serve as a TokenCache (a Map, or a shell's own): options are checked, never trusted. */
function isTokenCache(value: unknown): value is TokenCache {
  if (typeof value !== 'object' || value === null) return false;
  const cache = value as Partial<Record<keyof TokenCache, unknown>>;
  return typeof cache.get === 'function' && typeof cache.has === 'function' && typeof cache.set === 'function';
}

/** The text a turn is counted by ('' for a malformed turn). */
function turnText(turn: Turn): string {
  return typeof turn.text === 'string' ? turn.text : '';
}

/** Whether analyze tokenizes this turn (when it precedes a checkpoint and is not in the cache yet). */
function needsCount(turn: Turn, index: number, { firstOf, claimedByAny }: TurnIndexes): boolean {
  const first = firstOf(index);
  return first !== undefined && (claimedByAny.atTurn(first) ?? 0) > 0 && recordedTurnTokens(turn) === undefined;
}

function countText(ctx: Context, text: string): number {
  const n = ctx.countTokens(typeof text === 'string' ? text : '');
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
    throw new Error(`the token counter returned ${String(n)}`);
  }
  return n;
}

/** A turn's tokens: the recorded count wins; otherwise counted once and memoised. */
/**
 * The counted token figure of turn `index` (one without a recorded count): from the token cache, or counted and
 * put there; kept by index in Context.countedTurns, as each checkpoint asks again for every turn before it.
 */
function countedTurnTokens(ctx: Context, index: number, turn: Turn): number {
  if (ctx.keepsCounts && ctx.countedTurns === undefined) ctx.countedTurns = new Uint32Array(ctx.turns.length).fill(UNCOUNTED);
  const kept = ctx.countedTurns?.[index];
  if (kept !== undefined && kept !== UNCOUNTED) return kept;
  const text = turnText(turn);
  let n = ctx.tokenCache.get(text);
  if (n === undefined) {
    n = countText(ctx, text);
    ctx.tokenCache.set(text, n);
  }
  if (ctx.countedTurns && n < UNCOUNTED) ctx.countedTurns[index] = n;
  return n;
}

/** Context.countedTurns: not counted yet (or a figure too large to keep there). */
const UNCOUNTED = 0xffffffff;

/** The summary's tokens: the recorded count, or the summary counted (once per text and analysis). */
function checkpointSummaryTokens(ctx: Context, cp: Checkpoint): number {
  return recordedSummaryTokens(cp) ?? summaryTokenCount(ctx, summaryText(cp));
}

function summaryTokenCount(ctx: Context, summary: string): number {
  let n = ctx.summaryTokens.get(summary);
  if (n === undefined) {
    n = countText(ctx, summary);
    ctx.summaryTokens.set(summary, n);
  }
  return n;
}

/**
 * A turn's evidence as a checkpoint before turn `before` sees it: whether its calls have results of their own
 * counts only when those results precede the checkpoint (lines appended later never change a past verdict).
 */
function piecesOf(ctx: Context, index: number, before: number, longPass: boolean): TurnPieces {
  const turn = ctx.turns[index];
  const first = ctx.firstOf(index);
  const answer = first === undefined ? undefined : ctx.firstAnswer.atTurn(first);
  const answeredSeparately = answer !== undefined && answer < before;
  const cache = ctx.evidenceCache;
  // Asked again by index: the turn's text is not hashed nor its variant made again (EvidenceCache.piecesAt). Not in
  // a long pass of a file of one checkpoint (keepsCounts is false), which keeps none of the texts it meets, even
  // those several turns hold.
  let pieces: TurnPieces;
  if (!longPass || ctx.keepsCounts) {
    ctx.evidenceSlots ??= new EvidenceSlots(ctx.reach);
    pieces = cache.piecesAt(ctx.evidenceSlots, index, turn, answeredSeparately, !longPass);
  } else {
    pieces = cache.piecesInLongPass(turn, answeredSeparately);
  }
  ctx.piecesMet += pieces.pieces.length;
  return pieces;
}

/** After a unit of a loop that may work out turns' evidence: whether it yields here (StepPace.due). */
function stepDone(ctx: Context): boolean {
  return ctx.pace.due(ctx.piecesMet, ctx.evidenceCache.charsWorked + ctx.charsJudged);
}

/** A turn's text as the judging reads it through (the passage looked for in the summary), counted as work. */
function textMet(ctx: Context, turn: Turn): string {
  const text = turnText(turn);
  ctx.charsJudged += text.length;
  return text;
}

/** The unit a turn belongs to for sharing: a tool result counts with the turn that made its call. */
function unitOf(ctx: Context, index: number, before: number): number {
  const answers = ctx.turns[index].answers;
  if (!answers) return index;
  const call = ctx.indexOfId.get(answers.turnId);
  return call !== undefined && call < before ? call : index;
}

/** Sharing of a form, packed in one number (no object per form): count × UNIT_SPAN + the first unit. */
const UNIT_SPAN = 2 ** 26;

/**
 * How many units (a call and its results count once) among the checkpoint's claimed turns name each form, and
 * the first of them, for the forms two or more units name. A form named by one unit or none is left out: its
 * sharing is what unpackSharing gives a form it does not find (one unit, this one), and a turn only asks about
 * forms it names itself. Most forms are named once, so a first pass counts hashes of the forms in a small table
 * (a TwiceFilter), and a second counts by name only the forms whose hash may have been counted twice. Neither
 * pass holds more than one unit's forms: each asks the evidence cache again, which works out again what it let
 * go (a transcript with more claimed text than the cache holds pays that, rather than memory for every unit's
 * forms at once). When the claimed turns hold more text than the evidence cache can, the passes and the judging
 * after them ask it as one long pass (EvidenceCache.piecesInLongPass), which keeps none of the units it computes
 * rather than letting each go before the next pass asks again; `longPass` says so. It depends only on turns
 * before the checkpoint, so lines appended later never change a past verdict.
 */
function* sharing(ctx: Context, claimedSet: ClaimedTurns, before: number): Generator<void, Shared, void> {
  const claimedIndexes = yield* indexesClaimed(ctx, claimedSet, before);
  // The claimed turns grouped by unit (a call with its results), in unit order: for each unit its first member
  // (an index into claimedIndexes, or -1), and for each member the next one, so members keep their order.
  const firstMember = new Int32Array(before).fill(-1);
  const nextMember = new Int32Array(claimedIndexes.length).fill(-1);
  for (let k = claimedIndexes.length - 1; k >= 0; k--) {
    if (k % STEP_TURNS === 0) yield;
    const unit = unitOf(ctx, claimedIndexes[k], before);
    nextMember[k] = firstMember[unit];
    firstMember[unit] = k;
  }
  // Hashes counted: a form whose hash the filter says was added at most once is named by one unit. The table is
  // sized by the claimed turns' text (the forms are not all known before this pass); a fuller table only sends
  // more forms to the count by name, which is exact.
  let claimedChars = 0;
  for (let k = 0; k < claimedIndexes.length; k++) {
    if (k % STEP_TURNS === 0) yield;
    claimedChars += turnText(ctx.turns[claimedIndexes[k]]).length;
  }
  const longPass = claimedChars > ctx.evidenceCache.limit;
  const seen = new TwiceFilter(claimedChars / CHARS_PER_FORM + claimedIndexes.length);
  // A unit's forms are read from its turns' pieces in each pass (unitForms.ts): the first adds each hash new to the
  // unit to the filter, the second counts by name each form the filter lets through that is new to the unit. Each
  // unit's evidence may be worked out in either pass, as in the judging: a yield after a step of such work
  // (StepPace), which a unit whose evidence was worked out again may end by itself.
  const met = new UnitForms();
  for (let unit = 0; unit < before; unit++) {
    if (firstMember[unit] < 0) {
      if (unit % STEP_TURNS === 0) yield;
      continue;
    }
    met.begin();
    for (let k = firstMember[unit]; k >= 0; k = nextMember[k]) {
      addNewHashes(piecesOf(ctx, claimedIndexes[k], before, longPass).pieces, met, seen);
    }
    if (stepDone(ctx)) yield;
  }
  // Backwards: each unit met makes itself the first.
  const packed = new Map<string, number>();
  let unitNow = 0; // the unit whose forms countForm is given
  const countForm = (form: string): void => {
    const known = packed.get(form);
    const count = Math.floor((known ?? 0) / UNIT_SPAN) + 1;
    // A new key is kept as a copy: the form is cut from its turn's text, and would keep all of it alive.
    packed.set(known === undefined ? detachedCopy(form) : form, count * UNIT_SPAN + (unitNow % UNIT_SPAN));
  };
  for (let unit = before - 1; unit >= 0; unit--) {
    if (firstMember[unit] < 0) {
      if (unit % STEP_TURNS === 0) yield;
      continue;
    }
    if (stepDone(ctx)) yield;
    met.begin();
    unitNow = unit;
    for (let k = firstMember[unit]; k >= 0; k = nextMember[k]) {
      visitFormsLetThrough(piecesOf(ctx, claimedIndexes[k], before, longPass).pieces, met, seen, countForm);
    }
  }
  return { packed, longPass };
}

/** What sharing found for a checkpoint: the forms named twice or more, packed, and whether its passes are long. */
interface Shared {
  packed: Map<string, number>;
  longPass: boolean;
}

/**
 * `text` as a string of its own. V8 makes a substring of 13 characters or more a view into the string it was cut
 * from, which then lives as long as the view: the map of forms named twice kept 54 MB of turn texts alive for
 * 156k forms at 3M turns (a heap snapshot at the end of the sharing counts). JSON.parse makes a new string.
 */
function detachedCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * The indexes of the claimed turns among the first `before`, in order: counted first, so the array is made at its
 * length (4 bytes a turn, not an array grown a copy at a time, to millions).
 */
function* indexesClaimed(ctx: Context, claimedSet: ClaimedTurns, before: number): Generator<void, Int32Array, void> {
  let count = 0;
  for (let i = 0; i < before; i++) {
    if (i % STEP_TURNS === 0) yield;
    if (claimedSet.hasTurn(i)) count++;
  }
  const indexes = new Int32Array(count);
  for (let i = 0, k = 0; i < before; i++) {
    if (i % STEP_TURNS === 0) yield;
    if (claimedSet.hasTurn(i)) indexes[k++] = i;
  }
  return indexes;
}

/**
 * Characters of text per form named, at the fewest measured (generated transcripts 17; real Claude Code sessions
 * 32–47), to size sharing's table of hashes.
 */
const CHARS_PER_FORM = 16;

/**
 * The sharing of a form no other unit names (most forms): one object for all of them, never modified (not frozen,
 * so it has the same shape as the others).
 */
const NAMED_HERE_ONLY: Sharing = { count: 1, first: true };

/** How many units name a form, and whether `unit` is the first of them. */
function unpackSharing(packed: number | undefined, unit: number): Sharing {
  if (packed === undefined) return NAMED_HERE_ONLY;
  return { count: Math.floor(packed / UNIT_SPAN), first: packed % UNIT_SPAN === unit % UNIT_SPAN };
}

/**
 * A copy of a turn's result with its token figure, made field by field in the order judgeCheckpoint gives them (so
 * `check --json` is unchanged). A spread (`{ ...r, tokens }`) gave most copies a hidden class of their own, about
 * 330 bytes each beside the result: 1,286 classes for 2,000 copies in a test of the results' shapes, and half of
 * the memory a checkpoint's results took in the extension (docs/performance-history.md).
 */
function withTokens(r: TurnResult, tokens: number | undefined): TurnResult {
  const copy: TurnResult = {
    id: r.id,
    index: r.index,
    status: r.status,
    claimed: r.claimed,
    evidence: r.evidence,
    reason: r.reason,
    line: r.line,
    endLine: r.endLine,
  };
  if ('score' in r) copy.score = r.score;
  if ('threshold' in r) copy.threshold = r.threshold;
  if ('reported' in r) copy.reported = r.reported;
  copy.tokens = tokens;
  return copy;
}

/**
 * Each turn's result for the checkpoint before its token figure: the judgement kept in ctx.judgements for this
 * snapshot, or one made now (and kept there). The results are shared, never modified.
 */
function* judgementOf(cp: Checkpoint, index: number, ctx: Context, before: number): Generator<void, JudgedTurns, void> {
  const key = judgementKey(ctx, cp, before);
  const kept = ctx.judgements?.get(index, key) ?? keptJudgement(ctx, index, before);
  if (kept) return kept;
  const judged = (yield* reweighedFromMemo(ctx, index, before)) ?? (yield* judgeCheckpoint(cp, index, ctx, before));
  ctx.judgements?.set(index, key, judged);
  return judged;
}

/** What a checkpoint's judgement in this context is made from (JudgementCache's key). */
function judgementKey(ctx: Context, cp: Checkpoint, before: number): JudgementKey {
  return { turns: ctx.turns, checkpoint: cp, before, threshold: ctx.threshold, sink: ctx.turnSink };
}

/**
 * Judges each turn before the checkpoint: its status, evidence and reason; everything but its token figure,
 * unless the transcript recorded it. With a turn sink, each result goes there as it is made, and the checkpoint
 * keeps only its status and marks, and the evidence found at a place in the summary no earlier turn's holds.
 */
function* judgeCheckpoint(cp: Checkpoint, index: number, ctx: Context, before: number): Generator<void, JudgedTurns, void> {
  const summary = summaryText(cp);
  const opaque = cp.opaque === true;
  const claimedSet = yield* claimedBefore(ctx, cp, before);
  const reportedSet = Array.isArray(cp.reportedIds) ? new Set<TurnId>(cp.reportedIds) : undefined;
  const summaryEmpty = !opaque && summary.trim() === '';
  const readable = !opaque && typeof cp.unverifiable !== 'string' && !summaryEmpty;
  const matcher = readable ? new SummaryMatcher(summary) : undefined;
  const sharedForms = matcher && !reportedSet ? yield* sharing(ctx, claimedSet, before) : undefined;
  const sink = ctx.turnSink;
  // Evidence alike is one object only where the results keep it: with a sink they keep few pieces of evidence,
  // and a table of them would keep hundreds of thousands that are otherwise garbage.
  const alike = sink ? undefined : evidenceTable();
  const state: SummaryState = {
    opaque,
    summaryEmpty,
    unverifiable: cp.unverifiable,
    matcher,
    shared: sharedForms?.packed,
    longPass: sharedForms?.longPass === true,
    before,
    alike,
  };
  const results: TurnResult[] | undefined = sink ? undefined : [];
  const statuses = new Uint8Array(before);
  const marks = new Uint8Array(before);
  // Without results there is nothing to re-weigh (reweigh.ts): no rules kept then.
  const rules = new Uint8Array(sink ? 0 : before);
  sink?.begin(index);
  // With a sink: the evidence found, each place in the summary once (foundNew), and those places.
  const found: Evidence[] = [];
  const placesFound = new Set<number>();
  const onResult = ctx.judging?.onResult;
  // A yield after a step of judging (StepPace): the check at the top counts the turn before.
  for (let i = 0; i < before; i++) {
    if (stepDone(ctx)) yield;
    if (ctx.judging && ++ctx.judging.done % STEP_TURNS === 0) ctx.judging.report(ctx.judging.done, ctx.judging.total);
    const turn = ctx.turns[i];
    const claimed = claimedSet.hasTurn(i);
    const reported = reportedSet ? reportedSet.has(turn.id) : undefined;
    if (!claimed && reported === undefined && !sink) {
      // The same result for every checkpoint that does not claim the turn: made once (unclaimedResult).
      const shared = unclaimedResult(ctx.unclaimed.judged, i, turn);
      results?.push(shared);
      onResult?.(index, shared);
      statuses[i] = UNCOVERED_CODE; // and no marks
      continue;
    }
    const judged = judgeTurn(ctx, i, turn, claimed, reported, state);
    const span = turn.span; // read once: a turn whose text is on disk makes its span when asked
    const result: TurnResult = {
      id: turn.id,
      index: i,
      status: judged.status,
      claimed,
      evidence: judged.evidence ?? [],
      reason: judged.reason,
      line: span?.startLine ?? 0,
      endLine: span?.endLine ?? span?.startLine ?? 0,
    };
    if (judged.score !== undefined) {
      result.score = judged.score;
      result.threshold = ctx.threshold;
    }
    if (reported !== undefined) result.reported = reported;
    const recorded = recordedTurnTokens(turn);
    if (recorded !== undefined) result.tokens = recorded; // the analysis's figure whatever is counted
    statuses[i] = STATUS_CODES[result.status];
    if (!sink) rules[i] = judged.rule ?? 0;
    marks[i] = (claimed ? JUDGED_CLAIMED : 0) | (reported === true ? JUDGED_REPORTED : 0);
    if (sink) {
      sink.turn(result);
      foundNew(result.evidence, placesFound, summary.length, found);
    } else {
      results?.push(result);
      onResult?.(index, result);
    }
  }
  return { results, ...trimmed(statuses, marks, rules), found };
}

/**
 * The result of the turn at `index` for a checkpoint that does not claim it and has no report of the summariser's
 * (judgeTurn's for such a turn, with its recorded token figure): one object per turn, kept in `store` by the turn's
 * index, shared by every such checkpoint of an analysis (Context.unclaimed.judged). Never modified.
 */
export function unclaimedResult(store: TurnResult[], index: number, turn: Turn): TurnResult {
  const kept = store[index];
  if (kept !== undefined) return kept;
  const span = turn.span; // read once: a turn whose text is on disk makes its span when asked
  const result: TurnResult = {
    id: turn.id,
    index,
    status: 'uncovered',
    claimed: false,
    evidence: NO_EVIDENCE,
    reason: REASON_UNCLAIMED,
    line: span?.startLine ?? 0,
    endLine: span?.endLine ?? span?.startLine ?? 0,
  };
  const recorded = recordedTurnTokens(turn);
  if (recorded !== undefined) result.tokens = recorded;
  store[index] = result;
  return result;
}

/**
 * A result with the token figure the analysis shows: `r` itself when it has it; for a turn's unclaimed result
 * (unclaimedResult), one copy per turn shared by every checkpoint, as the figure is the same for each.
 */
function shownResult(ctx: Context, r: TurnResult, tokens: number | undefined): TurnResult {
  if (r.tokens === tokens) return r;
  if (r !== ctx.unclaimed.judged[r.index]) return withTokens(r, tokens);
  const kept = ctx.unclaimed.shown[r.index];
  if (kept !== undefined && kept.tokens === tokens) return kept;
  const copy = withTokens(r, tokens);
  ctx.unclaimed.shown[r.index] = copy;
  return copy;
}

/** shownResult of each judged result, with its turn's figure, in steps. */
function* shownResults(
  ctx: Context,
  judged: readonly TurnResult[],
  figures: readonly (number | undefined)[],
): Generator<void, TurnResult[], void> {
  const shown: TurnResult[] = [];
  for (let i = 0; i < judged.length; i++) {
    if (i % STEP_TURNS === 0) yield;
    shown.push(shownResult(ctx, judged[i], figures[i]));
  }
  return shown;
}

/** The evidence of a result that weighed none: shared, never modified. */
const NO_EVIDENCE: Evidence[] = [];

/**
 * The statuses, marks and rules (none with a turn sink) from the first turn to the last that is not uncovered and
 * unmarked: a checkpoint keeps one of each per turn before it, so a file of many compactions kept them for every
 * earlier turn, again and again (1,000 compactions of 1.3M turns: 1.3 GB; a pi session's compactions each claim
 * from its start, so it is the turns after each claim there). The turns outside them, before and after its claim,
 * are all uncovered.
 */
function trimmed(
  statuses: Uint8Array,
  marks: Uint8Array,
  rules: Uint8Array,
): { from: number; statuses: Uint8Array; marks: Uint8Array; rules: Uint8Array } {
  let from = 0;
  while (from < statuses.length && statuses[from] === UNCOVERED_CODE && marks[from] === 0) from++;
  let to = statuses.length;
  while (to > from && statuses[to - 1] === UNCOVERED_CODE && marks[to - 1] === 0) to--;
  return from === 0 && to === statuses.length
    ? { from, statuses, marks, rules }
    : { from, statuses: statuses.slice(from, to), marks: marks.slice(from, to), rules: rules.slice(from, to) };
}

/** Each status's index in TURN_STATUSES (JudgedTurns.statuses). */
const STATUS_CODES = Object.fromEntries(TURN_STATUSES.map((status, code) => [status, code])) as Record<TurnStatus, number>;
const UNCOVERED_CODE = STATUS_CODES.uncovered;

/** Which of the turns before a checkpoint it claims (`hasTurn`, by a turn's index), marked at each id's first turn. */
interface ClaimedTurns {
  /** Whether the turn at this index (before the checkpoint) has a claimed id. */
  hasTurn(index: number): boolean;
}

/**
 * The checkpoint's claimed ids among the turns before it, as a mark per turn (at the first turn with each id)
 * rather than a set of ids: a byte a turn instead of a set entry for each of millions of claimed ids. Ids no turn
 * before the checkpoint has are left out: only those turns' ids are asked about.
 */
function* claimedBefore(ctx: Context, cp: Checkpoint, before: number): Generator<void, ClaimedTurns, void> {
  const claimedIds: readonly TurnId[] = Array.isArray(cp.claimedIds) ? cp.claimedIds : [];
  const marks = new Uint8Array(before);
  for (let k = 0; k < claimedIds.length; k++) {
    if (k % STEP_TURNS === 0) yield;
    const at = ctx.indexOfId.get(claimedIds[k]);
    if (at !== undefined && at < before) marks[at] = 1;
  }
  return {
    hasTurn: (index) => {
      const at = ctx.firstOf(index);
      return at !== undefined && at < before && marks[at] === 1;
    },
  };
}

/** Whether any checkpoint claims the id of the turn at `index`. */
function claimedByAnyAt(ctx: Context, index: number): boolean {
  const at = ctx.firstOf(index);
  return at !== undefined && (ctx.claimedByAny.atTurn(at) ?? 0) > 0;
}

/**
 * What a checkpoint keeps of a turn's evidence when its result went to a turn sink (CheckpointAnalysis.turnsWritten):
 * only what its figures need, the anchors found in the summary (foundAnchors), so each piece found at a place in
 * the summary (its offset and length) that no earlier turn's evidence was found at, added to `found`. `places`
 * holds those places (offset × (summaryLength + 1) + length), and gains the turn's. Evidence is sorted found first.
 */
function foundNew(evidence: readonly Evidence[], places: Set<number>, summaryLength: number, found: Evidence[]): void {
  for (const e of evidence) {
    if (!e.found) break;
    if (e.at === undefined) continue;
    const place = e.at * (summaryLength + 1) + (e.length ?? e.text.length);
    if (places.has(place)) continue;
    places.add(place);
    found.push(e);
  }
}

/** A checkpoint's analysis, and its turns as judged for it (what the memo keeps beside it: keep). */
function* analyzeCheckpoint(
  cp: Checkpoint,
  index: number,
  ctx: Context,
): Generator<void, { analysis: CheckpointAnalysis; judged: JudgedTurns }, void> {
  if (!cp || typeof cp !== 'object') throw new Error('the checkpoint record is not an object');
  const name = typeof cp.summaryId === 'string' ? cp.summaryId : `#${index + 1}`;
  const summary = summaryText(cp);
  const opaque = cp.opaque === true;
  const claimedIds: TurnId[] = Array.isArray(cp.claimedIds) ? cp.claimedIds : [];
  const path: 'A' | 'B' = Array.isArray(cp.reportedIds) ? 'A' : 'B';
  const before = turnsBefore(cp, name, ctx);
  // Sizes: the memo's when it kept an analysis whose figures are this one's (another threshold or ratio floor).
  const kept = keptWithSameFigures(ctx, index, before);
  const { prefixTokens, prefixTokenSource, tokensOf } = kept
    ? keptSizes(kept.analysis)
    : yield* measuredSizes(ctx, yield* claimedBefore(ctx, cp, before), before);
  const summaryTokens = checkpointSummaryTokens(ctx, cp);
  const rawBudget = cp.summaryBudget;
  const budgetKnown = typeof rawBudget === 'number' && Number.isFinite(rawBudget) && rawBudget > 0;
  const summaryBudget = budgetKnown ? rawBudget : undefined;
  const budgetAssumed = budgetKnown && cp.budgetAssumed === true;
  const ceiling = summaryBudget !== undefined ? summaryBudget * ctx.ratioFloor : undefined;
  const overCeiling = ceiling !== undefined && prefixTokens > ceiling;

  // Evidence per turn: the judgement (made ahead, or now), with each turn's counted token figure added.
  const summaryEmpty = !opaque && summary.trim() === '';
  const judged = yield* judgementOf(cp, index, ctx, before);
  const { statuses, marks, from } = judged;
  const figures = tokensOf ?? [];
  const results = judged.results && (yield* shownResults(ctx, judged.results, figures));

  const counts: Record<TurnStatus, number> = { covered: 0, 'claimed-missing': 0, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 };
  let claimedCount = 0;
  counts.uncovered += before - statuses.length; // the turns before `from` and after its statuses (JudgedTurns)
  for (let i = 0; i < statuses.length; i++) {
    counts[TURN_STATUSES[statuses[i]]]++;
    if ((marks[i] & JUDGED_CLAIMED) !== 0) claimedCount++;
  }
  const missing = counts['claimed-missing'];
  /** The claimed turns (their indexes) that `keep` keeps, by their status and whether they were reported. */
  const claimedWhere = (keep: (status: TurnStatus, reported: boolean) => boolean): number[] => {
    const kept: number[] = [];
    for (let i = 0; i < statuses.length; i++) {
      if ((marks[i] & JUDGED_CLAIMED) !== 0 && keep(TURN_STATUSES[statuses[i]], (marks[i] & JUDGED_REPORTED) !== 0)) kept.push(from + i);
    }
    return kept;
  };
  const reportedOnes = (_status: TurnStatus, reported: boolean): boolean => reported;

  // Verdict and safe pointer set. "Reversible" needs positive evidence: an empty or unreadable summary, claimed
  // turns with no text, or a pointer set that is mostly turns with nothing to check never is.
  const nothing = counts['nothing-to-check'];
  let verdict: Verdict;
  let verdictReason: string;
  let safe: number[];
  const vacuous = vacuousReason(claimedCount, () => someClaimedTurnHasText(ctx.turns, marks, from), nothing, summaryEmpty);
  if (opaque && path === 'B') {
    safe = [];
    verdict = 'fail-closed';
    verdictReason =
      `the summary is encrypted: whether it carries its ${groupDigits(claimedCount)} claimed turns cannot be checked, ` +
      'so none may be counted as covered (fail closed)';
  } else if (typeof cp.unverifiable === 'string') {
    safe = [];
    verdict = 'fail-closed';
    verdictReason = `coverage cannot be checked in this file: ${cp.unverifiable}`;
  } else if (vacuous !== undefined) {
    safe = path === 'A' ? claimedWhere(reportedOnes) : [];
    verdict = 'fail-closed';
    verdictReason = `${vacuous}: there is no positive evidence of coverage, so none may be claimed (fail closed)`;
  } else if (path === 'A' && opaque) {
    safe = claimedWhere(reportedOnes);
    verdict = 'fail-closed';
    verdictReason =
      "the summary is encrypted: coverage rests on the summariser's report alone and cannot be checked in its text, " +
      'so it is never reversible (the safe pointer set is what the summariser reported)';
  } else if (path === 'A') {
    safe = claimedWhere(reportedOnes);
    verdict = missing === 0 ? 'reversible' : 'conditional';
    verdictReason =
      missing === 0
        ? `the summariser reported consuming every claimed turn (${groupDigits(claimedCount)})`
        : `the pointer set claims ${groupDigits(missing)} turn${missing === 1 ? '' : 's'} the summariser did not report consuming; ` +
          'narrow it to the reported ids';
  } else if (ceiling === undefined || overCeiling) {
    safe = runFromStart(statuses, marks, from);
    verdict = 'fail-closed';
    const why =
      ceiling === undefined
        ? 'the summary budget is unknown, so the ceiling cannot be checked'
        : 'the prefix is over the ceiling and the summariser reported no coverage';
    verdictReason =
      `${why}: fail closed — the pointer set may not advance past the last turn whose evidence is in the summary` +
      (missing > 0 ? ` (${groupDigits(missing)} claimed turn${missing === 1 ? ' is' : 's are'} not carried by it)` : '');
  } else {
    safe = claimedWhere((status) => status === 'covered');
    verdict = missing === 0 ? 'reversible' : 'conditional';
    const neutral = nothing > 0 ? ` (${groupDigits(nothing)} more hold nothing to check)` : '';
    verdictReason =
      missing === 0
        ? `within the ceiling, and the summary carries every claimed turn that holds something to carry: ${groupDigits(counts.covered)} covered${neutral}`
        : `the summary does not carry ${groupDigits(missing)} claimed turn${missing === 1 ? '' : 's'}; ` +
          'narrow the pointer set to the turns it covers';
  }

  const truncation = opaque
    ? { truncated: false, reasons: [] }
    : detectTruncation(summary, summaryTokens, summaryBudget, cp.truncationHints, ctx.nearBudgetFraction, textsBefore(ctx.turns, before));

  const notes = Array.isArray(cp.notes) ? cp.notes.filter((n) => typeof n === 'string') : [];
  const reasons = [
    verdictReason,
    ...ceilingFacts(cp, prefixTokens, prefixTokenSource, summaryBudget, budgetAssumed, ceiling, ctx.ratioFloor),
  ];
  if (truncation.truncated) reasons.push(`summary appears truncated: ${truncation.reasons.join('; ')}`);
  reasons.push(...notes);

  // The same evidence in the same summary (the memo's sync keeps the record) is found at the same places.
  const anchors =
    kept && results && sameEvidence(results, kept.analysis.turns)
      ? kept.analysis.foundAnchors
      : yield* foundAnchors(results ? yield* foundEvidence(results) : judged.found, summary);

  const analysis: CheckpointAnalysis = {
    summaryId: name,
    index,
    line: lineOf(cp),
    endLine: cp.span?.endLine ?? lineOf(cp),
    verdict,
    reasons,
    path,
    claimedIds,
    prefixTokens,
    prefixTokenSource,
    summaryTokens,
    budgetAssumed,
    ratioFloor: ctx.ratioFloor,
    overCeiling,
    opaque,
    unverifiable: typeof cp.unverifiable === 'string' ? cp.unverifiable : undefined,
    truncation,
    turns: results ?? [],
    counts,
    safeCovered: safe.map((i) => ctx.turns[i].id),
    claimedMissingRanges: rangesFromIndexes((i) => ctx.turns[i].id, indexesOf(statuses, STATUS_CODES['claimed-missing'], from)),
    foundAnchors: anchors,
    notes,
  };
  if (results === undefined) {
    analysis.turnsWritten = true;
    analysis.turnsBefore = before;
  }
  if (typeof cp.recordedPrefixTokens === 'number' && Number.isFinite(cp.recordedPrefixTokens)) {
    analysis.recordedPrefixTokens = cp.recordedPrefixTokens;
  }
  if (summaryBudget !== undefined) analysis.summaryBudget = summaryBudget;
  if (ceiling !== undefined) analysis.ceiling = ceiling;
  return { analysis, judged };
}

/** The texts of the first `before` turns, in order, one at a time (a text may be read back from disk). */
function* textsBefore(turns: readonly Turn[], before: number): Generator<string, void, void> {
  for (let i = 0; i < before; i++) yield turnText(turns[i]);
}

/** The number of turns before the checkpoint, clamped into the transcript (with a warning when it had to be). */
function turnsBefore(cp: Checkpoint, name: string, ctx: Context): number {
  const n = cp.turnsBefore;
  const total = ctx.turns.length;
  const { used, valid } = clampTurnsBefore(cp, total);
  if (valid) return used;
  ctx.problems.push({
    line: lineOf(cp),
    severity: 'warning',
    message:
      `checkpoint ${name}: its position (${String(n)} turns before it) is not within the ${total} turns read; ` + `treated as ${used}`,
  });
  return used;
}

/**
 * Why a checkpoint's coverage would be vacuous (no positive evidence is possible), or undefined. `someHaveText`
 * says whether any claimed turn has text (asked only when it matters: it may read texts back from disk).
 */
function vacuousReason(claimed: number, someHaveText: () => boolean, nothing: number, summaryEmpty: boolean): string | undefined {
  if (summaryEmpty) return 'the summary is empty';
  if (claimed > 0 && !someHaveText()) return 'none of its claimed turns has any text';
  if (claimed > 0 && nothing * 2 > claimed) {
    return `${groupDigits(nothing)} of its ${groupDigits(claimed)} claimed turns hold nothing to check`;
  }
  return undefined;
}

interface SummaryState {
  opaque: boolean;
  summaryEmpty: boolean;
  unverifiable?: string;
  matcher?: SummaryMatcher;
  shared?: Map<string, number>;
  /** Whether the turns' evidence is asked of the cache as one long pass (sharing's `longPass`). */
  longPass: boolean;
  /** Number of turns before the checkpoint. */
  before: number;
  /** The evidence the checkpoint's turns hold alike, one object each (none when a sink takes the turns). */
  alike?: EvidenceTable;
}

interface TurnJudgement {
  status: TurnStatus;
  /** Undefined for a weighed turn that is covered or claimed-missing (TurnResult.reason). */
  reason: string | undefined;
  evidence?: Evidence[];
  score?: number;
  /** A weighed turn's coverage rule (JudgedTurns.rules). */
  rule?: number;
}

/** One turn's status for one checkpoint, with the evidence and the sentence that explains it. */
function judgeTurn(
  ctx: Context,
  index: number,
  turn: Turn,
  claimed: boolean,
  reported: boolean | undefined,
  state: SummaryState,
): TurnJudgement {
  if (!claimed) return { status: 'uncovered', reason: REASON_UNCLAIMED };
  if (reported !== undefined) {
    if (reported) return { status: 'covered', reason: REASON_REPORTED };
    return { status: 'claimed-missing', reason: REASON_NOT_REPORTED };
  }
  if (state.opaque) return { status: 'unverifiable', reason: REASON_OPAQUE };
  if (typeof state.unverifiable === 'string') {
    return { status: 'unverifiable', reason: `coverage cannot be checked in this file: ${state.unverifiable}` };
  }
  if (typeof turn.anchor === 'string') {
    // The note's anchor_token: matched exactly, as Python's `in`.
    const at = state.matcher?.findExact(turn.anchor);
    const e: Evidence = { text: turn.anchor, kind: 'explicit', found: at !== undefined, weight: 1, sharedBy: 1 };
    if (at !== undefined) {
      e.at = at;
      e.length = turn.anchor.length;
    }
    return at !== undefined
      ? { status: 'covered', reason: `its anchor “${turn.anchor}” is in the summary`, evidence: [e], score: 1 }
      : { status: 'claimed-missing', reason: `claimed, but its anchor “${turn.anchor}” is not in the summary`, evidence: [e], score: 0 };
  }
  const pieces = piecesOf(ctx, index, state.before, state.longPass);
  if (pieces.nothing !== undefined) {
    return { status: 'nothing-to-check', reason: `nothing worth carrying: ${pieces.nothing}` };
  }
  const nextStep = pieces.lookupResult === true ? locatorNextStep(ctx, index, turn, state.before) : undefined;
  if (nextStep !== undefined) {
    const line = nextStep.span?.startLine;
    const where = typeof line === 'number' && line > 0 ? ` (line ${line})` : '';
    return { status: 'nothing-to-check', reason: `nothing worth carrying: ${LOCATOR_BEFORE}${where}${LOCATOR_AFTER}` };
  }
  if (state.summaryEmpty || !state.matcher) {
    return { status: 'claimed-missing', reason: REASON_EMPTY };
  }
  const shared = state.shared;
  const unit = unitOf(ctx, index, index + 1);
  const matcher = state.matcher;
  const passage = ctx.prose ? ctx.prose.passage(index, () => textMet(ctx, turn), matcher) : verbatimPassage(textMet(ctx, turn), matcher);
  const j = judge(
    passage && !pieces.pieces.some((p) => p.key === passage.key) ? [...pieces.pieces, passage] : pieces.pieces,
    state.matcher,
    (form) => unpackSharing(shared?.get(form), unit),
    {
      confirmation: pieces.confirmation,
      lookupResult: pieces.lookupResult,
      fileRead: pieces.fileRead,
      error: pieces.error,
      lookupOnly: pieces.lookupOnly,
      alike: state.alike,
    },
  );
  const { status, reason } = weighedStatus(j.rule, j.score, ctx.threshold);
  return { status, reason, evidence: j.evidence, score: j.score, rule: j.rule };
}

/** Why a search result that only locates what the next step reads or edits holds nothing worth carrying: the step's line goes between. */
const LOCATOR_BEFORE = 'a search that only locates the lines the next step reads or edits';
const LOCATOR_AFTER = ': what it found is in that step';

/** Tool results after a result that are skipped to find the agent's next step (the results of parallel calls). */
const MAX_RESULTS_SKIPPED = 16;

/**
 * The agent's next step, when the tool result at `index` is a search that only locates what that step reads or
 * edits (locatorSearch.ts). The next step is the first turn after it that is not a tool result, before the checkpoint
 * (`before`): lines appended later never change a past judgement.
 */
function locatorNextStep(ctx: Context, index: number, turn: Turn, before: number): Turn | undefined {
  const callText = turn.answers?.callText;
  if (typeof callText !== 'string') return undefined;
  for (let next = index + 1; next < before && next <= index + 1 + MAX_RESULTS_SKIPPED; next++) {
    const step = ctx.turns[next];
    if (step.answers !== undefined) continue;
    return locatesForNextStep(turnText(turn), callText, turnText(step)) ? step : undefined;
  }
  return undefined;
}

/**
 * Over the ceiling (or with no ceiling) and no report: the longest run of claimed turns from the start whose
 * evidence is in the summary. Turns with nothing to check do not break the run, but the run does not end on
 * them: the pointer set stops at the last covered turn (the note's fail-closed rule).
 */
function runFromStart(statuses: Uint8Array, marks: Uint8Array, from: number): number[] {
  // A neutral status is never evidence of coverage: the safe set holds the covered turns of the run only.
  const covered: number[] = [];
  for (let i = 0; i < statuses.length; i++) {
    if ((marks[i] & JUDGED_CLAIMED) === 0) continue;
    const status = TURN_STATUSES[statuses[i]];
    if (status === 'covered') covered.push(from + i);
    else if (status !== 'nothing-to-check') break;
  }
  return covered;
}

/** Whether any turn marked claimed has a text that is not blank (stops at the first). */
function someClaimedTurnHasText(turns: readonly Turn[], marks: Uint8Array, from: number): boolean {
  for (let i = 0; i < marks.length; i++) {
    if ((marks[i] & JUDGED_CLAIMED) === 0) continue;
    const text = turns[from + i].text;
    if (typeof text === 'string' && text.trim() !== '') return true;
  }
  return false;
}

/** The indexes (codes[i] is turn from + i's) whose code is `code`, in order. */
function* indexesOf(codes: Uint8Array, code: number, from: number): Generator<number, void, void> {
  for (let i = 0; i < codes.length; i++) if (codes[i] === code) yield from + i;
}

/**
 * The evidence of the results found in the summary, in order: by plain loops, yielding every STEP_TURNS results (a
 * generator over every piece took 25 ms of a 100k-turn checkpoint's 150 ms re-weighed analysis; most pieces are not
 * found).
 */
function* foundEvidence(results: readonly TurnResult[]): Generator<void, Evidence[], void> {
  const found: Evidence[] = [];
  for (let i = 0; i < results.length; i++) {
    if (i % STEP_TURNS === 0) yield;
    const evidence = results[i].evidence;
    for (let k = 0; k < evidence.length; k++) if (evidence[k].found) found.push(evidence[k]);
  }
  return found;
}

function ceilingFacts(
  cp: Checkpoint,
  prefixTokens: number,
  source: TokenSource | 'mixed',
  budget: number | undefined,
  assumed: boolean,
  ceiling: number | undefined,
  ratio: number,
): string[] {
  const facts: string[] = [];
  const counted = source === 'counted' ? ' (counted)' : source === 'mixed' ? ' (partly counted)' : '';
  if (budget === undefined || ceiling === undefined) {
    const given = cp.summaryBudget;
    facts.push(
      `prefix ${groupDigits(prefixTokens)} tokens${counted}; ` +
        (given === undefined || given === null
          ? 'the summary budget is not recorded, so there is no ceiling to compare with'
          : `the summary budget ${String(given)} is not a usable number, so there is no ceiling to compare with`),
    );
  } else {
    const op = prefixTokens > ceiling ? '>' : '≤';
    facts.push(
      `prefix ${groupDigits(prefixTokens)} tokens${counted} ${op} ceiling ${groupDigits(ceiling)} (${groupDigits(budget)} × ${groupDigits(ratio)})` +
        (assumed ? ' (assumed budget)' : ''),
    );
  }
  if (typeof cp.recordedPrefixTokens === 'number' && Number.isFinite(cp.recordedPrefixTokens)) {
    facts.push(`the agent recorded ${groupDigits(cp.recordedPrefixTokens)} tokens of context at compaction`);
  }
  return facts;
}

/** Whether each result holds the same evidence (the same array) as the other list's result for its turn. */
function sameEvidence(results: readonly TurnResult[], others: readonly TurnResult[]): boolean {
  if (results.length !== others.length) return false;
  for (let i = 0; i < results.length; i++) if (results[i].evidence !== others[i].evidence) return false;
  return true;
}

/** Evidence found in the summary, as the summary spells it, for highlighting. */
function* foundAnchors(evidence: readonly Evidence[], summary: string): Generator<void, { anchor: string; at: number }[], void> {
  const seen = new Set<string>();
  const out: { anchor: string; at: number }[] = [];
  for (let k = 0; k < evidence.length; k++) {
    if (k % STEP_TURNS === 0) yield;
    const e = evidence[k];
    if (!e.found || e.at === undefined) continue;
    const anchor = summary.slice(e.at, e.at + (e.length ?? e.text.length));
    if (anchor.length === 0) continue;
    const key = `${e.at}\u0000${anchor}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ anchor, at: e.at });
  }
  return out.sort((x, y) => x.at - y.at || x.anchor.localeCompare(y.anchor));
}

/** A checkpoint's prefix in tokens, where those figures come from, and each turn's figure for its result. */
interface Sizes {
  prefixTokens: number;
  prefixTokenSource: TokenSource | 'mixed';
  /** Each turn's token figure, for its result; undefined when a turn sink takes the results (none are kept). */
  tokensOf: (number | undefined)[] | undefined;
}

/** The sizes of the checkpoint whose claimed turns (of the first `before`) are `claimedSet`, each turn's figure found. */
function* measuredSizes(ctx: Context, claimedSet: ClaimedTurns, before: number): Generator<void, Sizes, void> {
  let prefixTokens = 0;
  let recorded = 0;
  let counted = 0;
  const tokensOf: (number | undefined)[] | undefined = ctx.turnSink ? undefined : [];
  for (let i = 0; i < before; i++) {
    if (i % STEP_TURNS === 0) yield;
    const turn = ctx.turns[i];
    const claimed = claimedSet.hasTurn(i);
    if (!claimed && !claimedByAnyAt(ctx, i)) {
      tokensOf?.push(recordedTurnTokens(turn));
    } else if (!claimed) {
      // Shown for a turn another checkpoint claims; a counting failure there is that checkpoint's problem.
      try {
        tokensOf?.push(recordedTurnTokens(turn) ?? countedTurnTokens(ctx, i, turn));
      } catch {
        ctx.countFailures++;
        tokensOf?.push(undefined);
      }
    } else {
      let tokens = recordedTurnTokens(turn);
      if (tokens !== undefined) {
        recorded++;
      } else {
        tokens = countedTurnTokens(ctx, i, turn);
        counted++;
      }
      prefixTokens += tokens;
      tokensOf?.push(tokens);
    }
  }
  const prefixTokenSource: TokenSource | 'mixed' = counted === 0 ? 'recorded' : recorded === 0 ? 'counted' : 'mixed';
  return { prefixTokens, prefixTokenSource, tokensOf };
}

/**
 * The checkpoint's analysis the memo kept, when its turns' token figures are this analysis's: the same turns before
 * it (the memo's sync sees to that) counted with the same token cache, and its results kept (no turn sink). Only
 * the judgement's threshold, the ratio floor or the near-budget fraction can differ (else the memo gives the
 * analysis whole).
 */
function keptWithSameFigures(ctx: Context, index: number, before: number): KeptAnalysis | undefined {
  const kept = ctx.memo.kept(index);
  if (!kept || ctx.turnSink !== undefined || kept.before !== before || kept.inputs.tokenCache !== ctx.tokenCache) return undefined;
  return kept.analysis.turnsWritten !== true && kept.analysis.turns.length === before ? kept : undefined;
}

/** The sizes of a kept analysis (keptWithSameFigures), as measuredSizes would find them again. */
function keptSizes(analysis: CheckpointAnalysis): Sizes {
  const tokensOf = new Array<number | undefined>(analysis.turns.length);
  for (let i = 0; i < tokensOf.length; i++) tokensOf[i] = analysis.turns[i].tokens;
  return { prefixTokens: analysis.prefixTokens, prefixTokenSource: analysis.prefixTokenSource, tokensOf };
}

/** What is left to say when a checkpoint could not be analysed. */
function failedCheckpoint(cp: Checkpoint, index: number, name: string, message: string, ratioFloor: number): CheckpointAnalysis {
  const line = lineOf(cp);
  return {
    summaryId: name,
    index,
    line,
    endLine: typeof cp?.span?.endLine === 'number' ? cp.span.endLine : line,
    verdict: 'fail-closed',
    reasons: [`this checkpoint could not be analysed (${message}); no coverage may be claimed for it`],
    path: Array.isArray(cp?.reportedIds) ? 'A' : 'B',
    claimedIds: Array.isArray(cp?.claimedIds) ? cp.claimedIds : [],
    prefixTokens: 0,
    prefixTokenSource: 'counted',
    summaryTokens: 0,
    budgetAssumed: false,
    ratioFloor,
    overCeiling: false,
    opaque: cp?.opaque === true,
    truncation: { truncated: false, reasons: [] },
    turns: [],
    counts: { covered: 0, 'claimed-missing': 0, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 },
    safeCovered: [],
    claimedMissingRanges: [],
    foundAnchors: [],
    notes: [],
  };
}

function lineOf(cp: Checkpoint | undefined): number {
  const line = cp?.span?.startLine;
  return typeof line === 'number' && Number.isFinite(line) ? line : 0;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// analyze(transcript, options): the non-throwing checkpoint analysis. For every checkpoint it gives each earlier
// turn a status (covered / claimed-missing / uncovered) with the evidence, the prefix and summary sizes against
// the ceiling, the truncation tells, the verdict of the note's decision boundary and the safe pointer set —
// and explains in sentences where the note's reference API (reference.ts) would raise. textsToCount says which
// texts an analysis will tokenize, so a shell can count them elsewhere (worker threads) beforehand.
import { AnchorIndex, checkAnchors, SummaryMatcher, type AnchorCheck } from './anchors';
import { rangesFromIndexes } from './idRanges';
import type {
  AnchorEvidence,
  AnchorMatching,
  Analysis,
  AnalysisOptions,
  Checkpoint,
  CheckpointAnalysis,
  Problem,
  TokenSource,
  Transcript,
  Turn,
  TurnId,
  TurnResult,
  TurnStatus,
  Verdict,
  TokenCache,
} from './model';
import { COMPRESSION_RATIO_LOW } from './reference';
import { DEFAULT_NEAR_BUDGET_FRACTION, detectTruncation } from './truncation';

const MATCHING_RULES: readonly AnchorMatching[] = ['any', 'majority', 'all'];

const REASON_UNCLAIMED = 'not in the pointer set: kept verbatim, or read from the raw log when needed';
const REASON_REPORTED = 'reported consumed by the summariser';
const REASON_NOT_REPORTED = 'claimed by the pointer set, but the summariser did not report consuming it';
const REASON_OPAQUE = 'summary is encrypted; coverage cannot be verified';
const REASON_NO_ANCHOR = 'no distinctive content to check (no anchor): not counted as missing';

/** Everything shared by the checkpoints of one analysis. */
interface Context {
  turns: readonly Turn[];
  ratioFloor: number;
  matching: AnchorMatching;
  nearBudgetFraction: number;
  countTokens: (text: string) => number;
  tokenCache: TokenCache;
  summaryTokens: Map<string, number>;
  /** Ids claimed by any checkpoint: only these turns are tokenized. */
  claimedByAny: Set<TurnId>;
  anchorIndex?: AnchorIndex;
  problems: Problem[];
}

/** Analyses every checkpoint of a transcript. Never throws: failures become problems. */
export function analyze(transcript: Transcript, options: AnalysisOptions): Analysis {
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
    ctx = makeContext(turns, checkpoints, options, problems);
  } catch (err) {
    problems.push({ line: 0, severity: 'error', message: `could not analyse the transcript: ${messageOf(err)}` });
    return analysis;
  }

  checkpoints.forEach((cp, index) => {
    try {
      results.push(analyzeCheckpoint(cp, index, ctx));
    } catch (err) {
      const line = lineOf(cp);
      const name = typeof cp?.summaryId === 'string' ? cp.summaryId : `#${index + 1}`;
      problems.push({
        line,
        severity: 'error',
        message: `could not analyse checkpoint ${name}: ${messageOf(err)}; the other checkpoints are still analysed`,
      });
      results.push(failedCheckpoint(cp, index, name, messageOf(err), ctx.ratioFloor));
    }
  });
  return analysis;
}

function makeContext(
  turns: readonly Turn[],
  checkpoints: readonly Checkpoint[],
  options: AnalysisOptions,
  problems: Problem[],
): Context {
  const ratio = options?.ratioFloor;
  const near = options?.nearBudgetFraction;
  const count = options?.countTokens;
  const claimedByAny = claimedIdsOfAll(checkpoints);
  return {
    turns,
    ratioFloor: typeof ratio === 'number' && Number.isFinite(ratio) && ratio > 0 ? ratio : COMPRESSION_RATIO_LOW,
    matching: MATCHING_RULES.includes(options?.anchorMatching as AnchorMatching)
      ? (options.anchorMatching as AnchorMatching)
      : 'any',
    nearBudgetFraction: typeof near === 'number' && Number.isFinite(near) && near >= 0 ? near : DEFAULT_NEAR_BUDGET_FRACTION,
    countTokens:
      typeof count === 'function'
        ? count
        : () => {
            throw new Error('no token counter was given (options.countTokens)');
          },
    tokenCache: options?.tokenCache instanceof Map ? options.tokenCache : new Map(),
    summaryTokens: new Map(),
    claimedByAny,
    problems,
  };
}

/** Ids claimed by any checkpoint: only these turns are tokenized. */
function claimedIdsOfAll(checkpoints: readonly Checkpoint[]): Set<TurnId> {
  const claimedByAny = new Set<TurnId>();
  for (const cp of checkpoints) {
    if (Array.isArray(cp?.claimedIds)) for (const id of cp.claimedIds) claimedByAny.add(id);
  }
  return claimedByAny;
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
export function textsToCount(transcript: Transcript, tokenCache?: TokenCache): { turns: Turn[]; summaries: string[] } {
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  const cache = tokenCache instanceof Map ? tokenCache : undefined;
  const claimedByAny = claimedIdsOfAll(checkpoints);
  const summaries = new Set<string>();
  let reach = 0; // turns[0..reach-1] precede some checkpoint
  for (const cp of checkpoints) {
    if (!cp || typeof cp !== 'object') continue; // analyze fails such a checkpoint before counting anything
    reach = Math.max(reach, clampTurnsBefore(cp, turns.length).used);
    if (recordedSummaryTokens(cp) === undefined) summaries.add(summaryText(cp));
  }
  const seen = new Set<string>();
  const counted: Turn[] = [];
  for (let i = 0; i < reach; i++) {
    const turn = turns[i];
    if (!turn || typeof turn !== 'object') continue;
    const text = turnText(turn);
    if (seen.has(text) || !needsCount(turn, claimedByAny) || cache?.has(text)) continue;
    seen.add(text);
    counted.push(turn);
  }
  return { turns: counted, summaries: [...summaries] };
}

/** The text a turn is counted by ('' for a malformed turn). */
function turnText(turn: Turn): string {
  return typeof turn.text === 'string' ? turn.text : '';
}

/** Whether analyze tokenizes this turn (when it precedes a checkpoint and is not in the cache yet). */
function needsCount(turn: Turn, claimedByAny: ReadonlySet<TurnId>): boolean {
  return claimedByAny.has(turn.id) && recordedTurnTokens(turn) === undefined;
}

function countText(ctx: Context, text: string): number {
  const n = ctx.countTokens(typeof text === 'string' ? text : '');
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
    throw new Error(`the token counter returned ${String(n)}`);
  }
  return n;
}

/** A turn's tokens: the recorded count wins; otherwise counted once and memoised. */
function turnTokens(ctx: Context, turn: Turn): { tokens: number; source: TokenSource } {
  const recorded = recordedTurnTokens(turn);
  if (recorded !== undefined) return { tokens: recorded, source: 'recorded' };
  const text = turnText(turn);
  let n = ctx.tokenCache.get(text);
  if (n === undefined) {
    n = countText(ctx, text);
    ctx.tokenCache.set(text, n);
  }
  return { tokens: n, source: 'counted' };
}

function summaryTokenCount(ctx: Context, summary: string): number {
  let n = ctx.summaryTokens.get(summary);
  if (n === undefined) {
    n = countText(ctx, summary);
    ctx.summaryTokens.set(summary, n);
  }
  return n;
}

function anchorIndex(ctx: Context): AnchorIndex {
  if (!ctx.anchorIndex) ctx.anchorIndex = new AnchorIndex(ctx.turns);
  return ctx.anchorIndex;
}

function analyzeCheckpoint(cp: Checkpoint, index: number, ctx: Context): CheckpointAnalysis {
  if (!cp || typeof cp !== 'object') throw new Error('the checkpoint record is not an object');
  const name = typeof cp.summaryId === 'string' ? cp.summaryId : `#${index + 1}`;
  const summary = summaryText(cp);
  const opaque = cp.opaque === true;
  const claimedIds: TurnId[] = Array.isArray(cp.claimedIds) ? cp.claimedIds : [];
  const claimedSet = new Set<TurnId>(claimedIds);
  const reportedSet = Array.isArray(cp.reportedIds) ? new Set<TurnId>(cp.reportedIds) : undefined;
  const path: 'A' | 'B' = reportedSet ? 'A' : 'B';
  const before = turnsBefore(cp, name, ctx);
  const earlier = ctx.turns.slice(0, before);

  // Sizes.
  let prefixTokens = 0;
  let recorded = 0;
  let counted = 0;
  const tokensOf: (number | undefined)[] = earlier.map((turn) => {
    const claimed = claimedSet.has(turn.id);
    if (!claimed && !ctx.claimedByAny.has(turn.id)) return recordedTurnTokens(turn);
    if (!claimed) {
      // Shown for a turn another checkpoint claims; a counting failure there is that checkpoint's problem.
      try {
        return turnTokens(ctx, turn).tokens;
      } catch {
        return undefined;
      }
    }
    const t = turnTokens(ctx, turn);
    prefixTokens += t.tokens;
    if (t.source === 'recorded') recorded++;
    else counted++;
    return t.tokens;
  });
  const prefixTokenSource: TokenSource | 'mixed' = counted === 0 ? 'recorded' : recorded === 0 ? 'counted' : 'mixed';
  const summaryTokens = recordedSummaryTokens(cp) ?? summaryTokenCount(ctx, summary);
  const rawBudget = cp.summaryBudget;
  const budgetKnown = typeof rawBudget === 'number' && Number.isFinite(rawBudget) && rawBudget > 0;
  const summaryBudget = budgetKnown ? rawBudget : undefined;
  const budgetAssumed = budgetKnown && cp.budgetAssumed === true;
  const ceiling = summaryBudget !== undefined ? summaryBudget * ctx.ratioFloor : undefined;
  const overCeiling = ceiling !== undefined && prefixTokens > ceiling;

  // Evidence per turn.
  const matcher = opaque ? undefined : new SummaryMatcher(summary);
  const index_ = matcher && earlier.length > 0 ? anchorIndex(ctx) : undefined;
  const results: TurnResult[] = earlier.map((turn, i) => {
    const claimed = claimedSet.has(turn.id);
    let check: AnchorCheck | undefined;
    if (matcher && index_) {
      check = checkAnchors(turn, typeof turn.anchor === 'string' ? [] : index_.anchorsFor(i), matcher, ctx.matching);
    }
    const reported = reportedSet ? reportedSet.has(turn.id) : undefined;
    const { status, reason } = statusOf(claimed, reported, opaque, check, ctx.matching);
    const result: TurnResult = {
      id: turn.id,
      index: i,
      status,
      claimed,
      anchors: check ? check.anchors : [],
      reason,
      line: turn.span?.startLine ?? 0,
      endLine: turn.span?.endLine ?? turn.span?.startLine ?? 0,
    };
    if (reported !== undefined) result.reported = reported;
    if (tokensOf[i] !== undefined) result.tokens = tokensOf[i];
    return result;
  });

  const counts: Record<TurnStatus, number> = { covered: 0, 'claimed-missing': 0, uncovered: 0 };
  for (const r of results) counts[r.status]++;
  const claimedTurns = results.filter((r) => r.claimed);
  const missing = counts['claimed-missing'];

  // Verdict and safe pointer set.
  let verdict: Verdict;
  let verdictReason: string;
  let safe: TurnResult[];
  if (path === 'A') {
    safe = claimedTurns.filter((r) => r.reported);
    verdict = missing === 0 ? 'reversible' : 'conditional';
    verdictReason =
      missing === 0
        ? `the summariser reported consuming every claimed turn (${fmt(claimedTurns.length)})`
        : `pointer set claims ${fmt(missing)} turn${missing === 1 ? '' : 's'} the summariser did not report consuming; ` +
          'narrow it to the reported ids';
  } else if (opaque) {
    safe = [];
    verdict = 'fail-closed';
    verdictReason =
      `summary is encrypted: coverage of its ${fmt(claimedTurns.length)} claimed turns cannot be verified, ` +
      'so none may be claimed (fail closed)';
  } else if (typeof cp.unverifiable === 'string') {
    safe = [];
    verdict = 'fail-closed';
    verdictReason = `coverage cannot be checked in this file: ${cp.unverifiable}`;
  } else if (ceiling === undefined || overCeiling) {
    safe = runFromStart(claimedTurns);
    verdict = 'fail-closed';
    const why =
      ceiling === undefined
        ? 'summary budget is unknown, so the ceiling cannot be checked'
        : 'prefix is over the ceiling and the summariser reported no coverage';
    verdictReason =
      `${why}: fail closed — the pointer set may not advance past the last turn whose anchors are in the summary` +
      (missing > 0 ? ` (${fmt(missing)} claimed turn${missing === 1 ? ' is' : 's are'} missing from it)` : '');
  } else {
    safe = claimedTurns.filter((r) => r.status === 'covered');
    verdict = missing === 0 ? 'reversible' : 'conditional';
    verdictReason =
      missing === 0
        ? 'within the ceiling, and every claimed turn with an anchor has it in the summary'
        : `summary omits the anchors of ${fmt(missing)} claimed turn${missing === 1 ? '' : 's'}; ` +
          'narrow the pointer set to the turns it covers';
  }

  const truncation = opaque
    ? { truncated: false, reasons: [] }
    : detectTruncation(summary, summaryTokens, summaryBudget, cp.truncationHints, ctx.nearBudgetFraction);

  const notes = Array.isArray(cp.notes) ? cp.notes.filter((n) => typeof n === 'string') : [];
  const reasons = [verdictReason, ...ceilingFacts(cp, prefixTokens, prefixTokenSource, summaryBudget, budgetAssumed, ceiling, ctx.ratioFloor)];
  if (opaque && path === 'A') reasons.push('summary is encrypted: coverage rests on the summariser\'s report alone and cannot be verified in its text');
  if (truncation.truncated) reasons.push(`summary appears truncated: ${truncation.reasons.join('; ')}`);
  reasons.push(...notes);

  const missingIndexes = results.filter((r) => r.status === 'claimed-missing').map((r) => r.index);
  const orderedIds = earlier.map((t) => t.id);

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
    turns: results,
    counts,
    safeCovered: safe.map((r) => r.id),
    claimedMissingRanges: rangesFromIndexes(orderedIds, missingIndexes),
    foundAnchors: foundAnchors(results),
    notes,
  };
  if (typeof cp.recordedPrefixTokens === 'number' && Number.isFinite(cp.recordedPrefixTokens)) {
    analysis.recordedPrefixTokens = cp.recordedPrefixTokens;
  }
  if (summaryBudget !== undefined) analysis.summaryBudget = summaryBudget;
  if (ceiling !== undefined) analysis.ceiling = ceiling;
  return analysis;
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
    message: `checkpoint ${name}: its position (${String(n)} turns before it) is not within the ${total} turns read; ` +
      `treated as ${used}`,
  });
  return used;
}

function statusOf(
  claimed: boolean,
  reported: boolean | undefined,
  opaque: boolean,
  check: AnchorCheck | undefined,
  matching: AnchorMatching,
): { status: TurnStatus; reason: string } {
  if (!claimed) return { status: 'uncovered', reason: REASON_UNCLAIMED };
  if (reported !== undefined) {
    if (reported) return { status: 'covered', reason: REASON_REPORTED };
    return { status: 'claimed-missing', reason: opaque ? `${REASON_NOT_REPORTED}; ${REASON_OPAQUE}` : REASON_NOT_REPORTED };
  }
  if (opaque || !check) return { status: 'claimed-missing', reason: REASON_OPAQUE };
  if (check.outcome === 'none') return { status: 'covered', reason: REASON_NO_ANCHOR };
  return check.outcome === 'found'
    ? { status: 'covered', reason: foundReason(check, matching) }
    : { status: 'claimed-missing', reason: absentReason(check, matching) };
}

function quoteList(anchors: readonly AnchorEvidence[]): string {
  return anchors.map((a) => `“${a.anchor}”`).join(', ');
}

function foundReason(check: AnchorCheck, matching: AnchorMatching): string {
  const found = check.anchors.filter((a) => a.found);
  if (check.anchors[0]?.kind === 'explicit') return `anchor ${quoteList(found)} found in the summary`;
  const rule = matching === 'any' ? '' : ` (rule: ${matching})`;
  return `${found.length} of ${check.anchors.length} anchors found in the summary: ${quoteList(found)}${rule}`;
}

function absentReason(check: AnchorCheck, matching: AnchorMatching): string {
  if (check.anchors[0]?.kind === 'explicit') {
    return `claimed, but its anchor ${quoteList(check.anchors)} is not in the summary`;
  }
  const found = check.anchors.filter((a) => a.found);
  const absent = check.anchors.filter((a) => !a.found);
  if (found.length === 0) return `claimed, but none of its anchors are in the summary: ${quoteList(absent)}`;
  return (
    `claimed, but only ${found.length} of ${check.anchors.length} anchors are in the summary ` +
    `(rule: ${matching}); absent: ${quoteList(absent)}`
  );
}

/**
 * Over the ceiling (or with no ceiling) and no report: the longest run of claimed turns from the start whose
 * anchors are in the summary. Turns with no anchor do not break the run, but the run does not end on them:
 * the pointer set stops at the last turn whose anchor is present (the note's fail-closed rule).
 */
function runFromStart(claimedTurns: readonly TurnResult[]): TurnResult[] {
  let end = 0; // exclusive end of the run, after the last turn with an anchor present
  for (let i = 0; i < claimedTurns.length; i++) {
    const r = claimedTurns[i];
    if (r.status !== 'covered') break;
    if (r.anchors.some((a) => a.found)) end = i + 1;
  }
  return claimedTurns.slice(0, end);
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
      `prefix ${fmt(prefixTokens)} tokens${counted}; ` +
        (given === undefined || given === null
          ? 'the summary budget is not recorded, so there is no ceiling to compare with'
          : `the summary budget ${String(given)} is not a usable number, so there is no ceiling to compare with`),
    );
  } else {
    const op = prefixTokens > ceiling ? '>' : '≤';
    facts.push(
      `prefix ${fmt(prefixTokens)} tokens${counted} ${op} ceiling ${fmt(ceiling)} (${fmt(budget)} × ${fmt(ratio)})` +
        (assumed ? ' (assumed budget)' : ''),
    );
  }
  if (typeof cp.recordedPrefixTokens === 'number' && Number.isFinite(cp.recordedPrefixTokens)) {
    facts.push(`the agent recorded ${fmt(cp.recordedPrefixTokens)} tokens of context at compaction`);
  }
  return facts;
}

function foundAnchors(results: readonly TurnResult[]): { anchor: string; at: number }[] {
  const seen = new Set<string>();
  const out: { anchor: string; at: number }[] = [];
  for (const r of results) {
    for (const a of r.anchors) {
      if (!a.found || a.at === undefined || a.anchor.length === 0) continue;
      const key = `${a.at}\u0000${a.anchor}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ anchor: a.anchor, at: a.at });
    }
  }
  return out.sort((x, y) => x.at - y.at || x.anchor.localeCompare(y.anchor));
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
    counts: { covered: 0, 'claimed-missing': 0, uncovered: 0 },
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

/** 42000 → "42,000". */
function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const [int, frac] = String(n).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

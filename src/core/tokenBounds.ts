// Verdicts before the exact token counts. A token of tiktoken's encodings (o200k_base, cl100k_base) stands for
// 1 to 128 bytes of UTF-8, so a text's byte length bounds its count from above and an 128th of it from below;
// given the encoding's pre-tokenizer pattern, its number of pieces (tokenPieces.ts) bounds it from below too,
// far more closely (each piece is encoded on its own, in one token or more). The verdict depends on the counts
// only through the prefix's place against the ceiling; when the bounds of every checkpoint's prefix fall on
// one side of it, the verdicts, the turns' statuses and evidence and the safe pointer sets are those the exact
// counts give, and can be shown while the counting goes on. Some verdicts need neither the counts nor the
// judging: a checkpoint is fail-closed whatever its turns' evidence when its summary is encrypted, its coverage
// cannot be checked, or (with no report of what the summariser consumed) its budget is unknown or its prefix is
// surely over the ceiling; those are known as soon as the file is read, checkpoint by checkpoint. Pure.
import { analyze } from './analyze';
import type { Analysis, AnalysisOptions, Checkpoint, CheckpointVerdict, TokenCache, Transcript, Turn, TurnId } from './model';
import { COMPRESSION_RATIO_LOW } from './reference';
import { pieceLowerBound, type PiecePattern } from './tokenPieces';

/** The most UTF-8 bytes one token of o200k_base or cl100k_base stands for (their longest tokens). */
export const MAX_TOKEN_BYTES = 128;

/** The UTF-8 byte length of a text, as the tokenizer receives it (a lone surrogate as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Bounds of a text's exact token count: at least `low`, at most `high`. With the encoding's pattern, `low` is
 * also at least what the text's pieces show (pieceLowerBound).
 */
export function tokenBounds(text: string, pattern?: PiecePattern): { low: number; high: number } {
  const high = utf8Length(text);
  const low = Math.ceil(high / MAX_TOKEN_BYTES);
  return { low: pattern === undefined ? low : Math.max(low, pieceLowerBound(text, pattern)), high };
}

/** A text's token bounds, as tokenBounds gives them. */
export interface Bounds {
  low: number;
  high: number;
}

/** Texts longer than this are bounded by their bytes alone: one scan of their pieces would hold a slice too long. */
const MAX_PIECE_SCAN_CHARS = 1 << 20;

/** A text's bounds with the pattern's pieces, or its bytes' alone when it is over MAX_PIECE_SCAN_CHARS. */
function scannedBounds(text: string, pattern: PiecePattern | undefined): Bounds {
  return tokenBounds(text, text.length > MAX_PIECE_SCAN_CHARS ? undefined : pattern);
}

/**
 * The bounds of each text with the pattern's pieces, into `into`, a text per step (analyzeFile runs it in time
 * slices, so scanning a large file's uncounted texts never holds the thread for long).
 */
export function* boundsInSteps(texts: Iterable<string>, pattern: PiecePattern, into: Map<string, Bounds>): Generator<void, void, void> {
  for (const text of texts) {
    yield;
    if (!into.has(text)) into.set(text, scannedBounds(text, pattern));
  }
}

/**
 * The analysis the exact counts will give, as far as a verdict goes, or undefined when the bounds cannot tell.
 * Texts in `tokenCache` count exactly; any other is counted at its upper bound. Every checkpoint's verdict,
 * reasons of coverage, turn statuses, evidence and safe pointer set are final; its token figures (and the
 * sentences that quote them) are upper bounds until the exact analysis replaces it. `tokenCache` is not
 * changed. `known`: bounds worked out before (boundsInSteps, with the encoding's pieces), taken as they are; any
 * other text is bounded by its bytes alone.
 */
export function verdictFromBounds(
  transcript: Transcript,
  tokenCache: TokenCache,
  options: Omit<AnalysisOptions, 'countTokens' | 'tokenCache' | 'checkpointMemo'>,
  known?: ReadonlyMap<string, Bounds>,
): Analysis | undefined {
  const bounded = new Map<string, Bounds>(known ?? []);
  const boundsOf = (text: string): Bounds => {
    let b = bounded.get(text);
    if (b === undefined) {
      b = tokenBounds(text);
      bounded.set(text, b);
    }
    return b;
  };
  if (!mayBeSettled(transcript, tokenCache, options.ratioFloor, boundsOf)) return undefined;
  const countTokens = (text: string): number => tokenCache.get(text) ?? boundsOf(text).high;
  // Never with the file's checkpoint memo: these counts are bounds, not what the memo may keep.
  const analysis = analyze(transcript, { ...options, countTokens, tokenCache: new Map(), checkpointMemo: undefined });
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  for (const cp of analysis.checkpoints) {
    if (cp.ceiling === undefined || cp.prefixTokens <= cp.ceiling) continue; // within it even at the upper bounds
    let low = cp.prefixTokens;
    for (const result of cp.turns) {
      if (!result.claimed) continue;
      const turn = turns[result.index];
      if (turn === undefined || hasRecordedTokens(turn)) continue;
      const text = typeof turn.text === 'string' ? turn.text : '';
      if (tokenCache.has(text)) continue; // counted exactly (perhaps after its bounds were worked out ahead)
      const b = bounded.get(text);
      if (b !== undefined) low -= b.high - b.low;
    }
    if (low <= cp.ceiling) return undefined; // the exact prefix may fall on either side
  }
  return analysis;
}

/** Turns looked at between two steps when no text needs bounding (recorded or known counts). */
const STEP_TURNS = 4096;

/**
 * The verdicts that rest on no turn's judgement, known before the judging and the exact counts: a checkpoint is
 * fail-closed whatever its turns' evidence when its summary is encrypted, when its coverage cannot be checked in
 * this file, or, when nothing reported what the summariser consumed (the note's Path B), when its budget is
 * unknown or its claimed prefix is surely over the ceiling. Each checkpoint (named as analyze names it) with its
 * verdict, or none when it rests on the judging or on counts its bounds leave open. A claimed turn adds its
 * recorded count, its count in `tokenCache`, or its text's lower bound: from `bounds`, or worked out into it (with
 * `pattern`'s pieces; bytes alone without one or over MAX_PIECE_SCAN_CHARS), a text per step, and only until the
 * prefix is over its ceiling. A prefix that could not be over it even if every character were a token is not
 * scanned at all. `failsClosed`: the checkpoints an earlier call with the same ratio found fail-closed (a verdict
 * no count or bound can change), taken as they are and added to; it is for a later snapshot of the same file,
 * whose checkpoints and the turns before them are the same objects and values (TranscriptReader's
 * settledCheckpoints).
 */
export function* verdictsBeforeJudging(
  transcript: Transcript,
  tokenCache: TokenCache,
  ratioFloor: number | undefined,
  pattern: PiecePattern | undefined,
  bounds: Map<string, Bounds>,
  failsClosed?: WeakSet<Checkpoint>,
): Generator<void, CheckpointVerdict[], void> {
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  const ratio = ratioOf(ratioFloor);
  const verdicts: CheckpointVerdict[] = [];
  for (const [index, cp] of checkpoints.entries()) {
    const summaryId = typeof cp?.summaryId === 'string' ? cp.summaryId : `#${index + 1}`;
    // A checkpoint that is not an object fails in analyze: left to the analysis.
    const isRecord = !!cp && typeof cp === 'object';
    const settled =
      isRecord && (failsClosed?.has(cp) === true || (yield* failsClosedWhateverJudged(cp, turns, tokenCache, ratio, pattern, bounds)));
    if (settled) failsClosed?.add(cp);
    verdicts.push(settled ? { summaryId, verdict: 'fail-closed' } : { summaryId });
  }
  return verdicts;
}

/** Whether analyze gives the checkpoint 'fail-closed' whatever its turns' judgement (verdictsBeforeJudging). */
function* failsClosedWhateverJudged(
  cp: Checkpoint,
  turns: readonly Turn[],
  tokenCache: TokenCache,
  ratio: number,
  pattern: PiecePattern | undefined,
  bounds: Map<string, Bounds>,
): Generator<void, boolean, void> {
  if (cp.opaque === true || typeof cp.unverifiable === 'string') return true;
  if (Array.isArray(cp.reportedIds)) return false; // Path A: reversible or not as the judging finds the turns
  const budget = cp.summaryBudget;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) return true; // no ceiling to be within
  const n = cp.turnsBefore;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > turns.length) return false; // clamped: left to analyze
  const ceiling = budget * ratio;
  // Made a step at a time: 100k ids take some 20 ms.
  const claimed = new Set<TurnId>();
  const ids: readonly TurnId[] = Array.isArray(cp.claimedIds) ? cp.claimedIds : [];
  for (let k = 0; k < ids.length; k++) {
    if (k % STEP_TURNS === 0) yield;
    claimed.add(ids[k]);
  }
  // A text's lower bound is at most its length (a piece is a character or more; its bytes over 128 are fewer), so
  // a prefix whose texts are not longer than the ceiling cannot be shown over it: no text is scanned for nothing.
  let most = 0;
  for (let i = 0; i < n; i++) {
    if (i % STEP_TURNS === 0) yield;
    const turn = turns[i];
    if (!turn || typeof turn !== 'object' || !claimed.has(turn.id)) continue;
    if (hasRecordedTokens(turn)) {
      most += turn.tokens as number;
    } else {
      const text = turnText(turn); // read only when needed: a text may be read back from disk
      most += tokenCache.get(text) ?? bounds.get(text)?.low ?? text.length;
    }
  }
  if (most <= ceiling) return false;
  let low = 0;
  for (let i = 0; i < n; i++) {
    if (i % STEP_TURNS === 0) yield;
    const turn = turns[i];
    if (!turn || typeof turn !== 'object' || !claimed.has(turn.id)) continue;
    if (hasRecordedTokens(turn)) {
      low += turn.tokens as number;
    } else {
      const text = turnText(turn);
      let b = tokenCache.get(text) ?? bounds.get(text)?.low;
      if (b === undefined) {
        yield;
        const worked = scannedBounds(text, pattern);
        bounds.set(text, worked);
        b = worked.low;
      }
      low += b;
    }
    if (low > ceiling) return true;
  }
  return false;
}

/** A turn's text as analyze counts it ('' when it has none). */
function turnText(turn: Turn): string {
  return typeof turn.text === 'string' ? turn.text : '';
}

/** The ratio analyze takes: `ratioFloor` when usable, else the note's R_low. */
function ratioOf(ratioFloor: number | undefined): number {
  return typeof ratioFloor === 'number' && Number.isFinite(ratioFloor) && ratioFloor > 0 ? ratioFloor : COMPRESSION_RATIO_LOW;
}

/**
 * A quick look before the analysis: false when some checkpoint's claimed prefix surely straddles its ceiling
 * (then no verdict can be given, and the analysis is not worth making). It may say true where the analysis then
 * finds the bounds undecided; it never says false where they decide.
 */
function mayBeSettled(
  transcript: Transcript,
  tokenCache: TokenCache,
  ratioFloor: number | undefined,
  boundsOf: (text: string) => Bounds,
): boolean {
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly Checkpoint[] = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints : [];
  const ratio = ratioOf(ratioFloor);
  for (const cp of checkpoints) {
    const budget = cp?.summaryBudget;
    if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0 || !Array.isArray(cp.claimedIds)) continue;
    const n = cp.turnsBefore;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > turns.length) continue; // clamped: left to analyze
    const ceiling = budget * ratio;
    const claimed = new Set<TurnId>(cp.claimedIds);
    let low = 0;
    let high = 0;
    for (let i = 0; i < n; i++) {
      const turn = turns[i];
      if (!turn || typeof turn !== 'object' || !claimed.has(turn.id)) continue;
      const known = hasRecordedTokens(turn) ? turn.tokens : tokenCache.get(turnText(turn));
      const b = known !== undefined ? { low: known, high: known } : boundsOf(turnText(turn));
      low += b.low;
      high += b.high;
    }
    if (low <= ceiling && high > ceiling) return false;
  }
  return true;
}

/** Whether analyze takes the turn's recorded count (so it was never bounded). */
function hasRecordedTokens(turn: Turn): boolean {
  return typeof turn.tokens === 'number' && Number.isFinite(turn.tokens) && turn.tokens >= 0;
}

// The one open → count → analyse sequence, shared by the CLI and the extension: a token worker starts while the
// transcript file is opened (TranscriptFile), or, when verdicts are said while it is read, at the first of them or
// once it is read, and loads tiktoken with its first count; what the analysis will count is counted in the
// token pool's worker threads (warmTokenCache) while this thread judges the checkpoints' turns (judgeAhead, with
// the file's EvidenceCache; the extension has a large file's turns judged in a worker thread instead, kept for
// the file with the evidence it worked out, judgeInWorker.ts); then the analysis runs without tokenizing and
// takes those judgements. This thread works in time slices (inSlices), so the event loop (the workers' replies,
// progress, an abort; in the extension, the whole extension host) never waits long. The file's CheckpointMemo
// carries its checkpoint analyses to the next analysis, which reuses those an append did not change and skips
// their counting and evidence. A one-shot analysis (the CLI's) keeps neither memo nor cache past itself, and a
// small cache while it runs when the file's texts would not fit in the default one. Progress is one fraction from
// 0 to 1 with a short message.
import { analyzeInSteps, checkpointsToJudge, judgeAhead, textsToCountInSteps } from '../core/analyze';
import { CheckpointMemo } from '../core/checkpointMemo';
import { DEFAULT_EVIDENCE_CACHE_CHARS, EvidenceCache } from '../core/evidenceCache';
import { JudgementCache } from '../core/judgementCache';
import { stepsUntil } from '../core/steps';
import { prepareSurePieces } from '../core/surePieces';
import { inSlices, inSlicesThen } from './inSlices';
import { JUDGE_IN_WORKER_TURNS, judgeInWorker, type JudgeWorker } from './judgeInWorker';
import { underMemoryWatch } from './memoryWatch';
import type { Analysis, Checkpoint, CheckpointVerdict, TokenCache, Transcript, TurnSink } from '../core/model';
import { boundsInSteps, verdictFromBounds, verdictsBeforeJudging, type Bounds } from '../core/tokenBounds';
import { piecePatternOf, type EncodingName } from './tokenCounter';
import type { TokenPool } from './tokenPool';
import { TranscriptFile, type OpenOptions } from './transcriptFile';
import { warmTokenCache, type CountPlan } from './warmTokenCache';
import { DigestTokenCache } from './digestTokenCache';

/** What steers an analysis (the file's reading options aside). */
export interface AnalysisOptions {
  encoding: EncodingName;
  ratioFloor: number;
  /** undefined = the core's default threshold. */
  coverageThreshold?: number;
}

export interface ProgressOptions {
  signal?: AbortSignal;
  /** `fraction` runs from 0 to 1 over the whole job. */
  onProgress?: (fraction: number, message: string) => void;
  /**
   * Called before the analysis is done with each checkpoint's verdict as far as it is settled
   * (core/tokenBounds.ts): while the file is read, for the checkpoints read so far that its reader says are
   * settled (verdictsWhileReading: only those checkpoints are in the list), and again as soon as the file is
   * read, when some rest on no judgement (verdictsBeforeJudging: fail-closed whatever the turns' evidence; the
   * others without one), and after the judging when the tokens' bounds settle them all before the exact counts
   * (verdictFromBounds). The analysis, with the same verdicts, follows as the result.
   */
  onVerdict?: (verdicts: readonly CheckpointVerdict[]) => void;
  /**
   * The file is analysed once and let go (the CLI): no checkpoint memo, and an evidence cache for this analysis
   * alone, of ONE_SHOT_EVIDENCE_CHARS for a transcript of one checkpoint or when the turns' texts would not fit in
   * the default (oneShotEvidenceCache; returned empty); the file is opened to be read once (OpenOptions.readOnce),
   * so its reader goes once the transcript is made, and its turns' texts go to disk past TEXTS_ON_DISK_CHARS (or the
   * open options' textsOnDiskPast, when given).
   */
  oneShot?: boolean;
  /**
   * Where each turn's full result goes as it is judged, for a one-shot run that writes the results out or shows
   * none (core AnalysisOptions.turnSink): the analysis keeps the turns slimmed.
   */
  turnSink?: TurnSink;
  /**
   * Called once the file is read, before its analysis begins, with the transcript the analysis will judge: for a
   * command that keeps only some turns' results (a turn sink told which, core/keptTurns.ts) and finds them by
   * their text.
   */
  onRead?: (transcript: Transcript) => void;
  /**
   * A full garbage collection, for a process that can ask for one (the CLI's collectGarbage). It is asked for
   * once, between the read of a file whose texts went to disk (a large file, read once) and its analysis: the
   * read's garbage was still there when the sharing counts made their tables, and that was the 1 GB file's peak
   * (docs/performance-history.md, "A collection after the read").
   */
  collectGarbage?: () => void;
  /**
   * How the tokens are counted (warmTokenCache's CountPlan). For a file whose texts went to disk, analyzeFile gives
   * LEAN_COUNTING: one worker (a second costs some 75 MB), counting before the judging and ended once the counts
   * are in, and the texts read a group at a time. Texts read back in groups are not scanned for their bounds after
   * the judging (the bounds' map would hold every one of them): such a file's verdicts wait for the exact counts.
   */
  countPlan?: CountPlan;
  /**
   * Judge the checkpoints in a worker thread (judgeInWorker.ts), the extension's way: its host then sends the turns
   * and takes the judgements back (at 100k turns about a quarter of the judging's time, in steps of a few tens of
   * ms) instead of judging them in its own slices. Only when the checkpoints to judge claim at least `minTurns`
   * turns in all (JUDGE_IN_WORKER_TURNS), and never with a turn sink. When the worker fails, `onFallback` is told why and this
   * thread judges what it did not, as without it. `worker`: a JudgeWorker kept between analyses (the extension keeps
   * one per file, with the evidence it worked out); without it, a worker for this analysis alone (`workerFile`).
   */
  judgeWorker?: { minTurns?: number; workerFile?: string; worker?: JudgeWorker; onFallback?: (why: string) => void };
  /**
   * What analyzeFile worked out for the verdicts it said while the file was read, taken as it is and added to:
   * texts' token bounds, and the checkpoints found fail-closed (verdictsBeforeJudging). New ones without it.
   */
  bounds?: Map<string, Bounds>;
  failsClosed?: WeakSet<Checkpoint>;
}

export interface AnalysedFile {
  file: TranscriptFile;
  analysis: Analysis;
  /** The counts made for this file, for the next analysis of a grown snapshot. */
  tokenCache: TokenCache;
  /** The evidence worked out for this file, for the next analysis. */
  evidenceCache: EvidenceCache;
  /** The checkpoint analyses made for this file, for the next analysis of a grown snapshot. */
  checkpointMemo: CheckpointMemo;
}

/** What a file's analyses keep between them: its token counts and its turns' evidence. */
export interface FileCaches {
  tokenCache: TokenCache;
  /** undefined = a fresh one for this analysis. */
  evidenceCache?: EvidenceCache;
  /** undefined = none kept: every checkpoint is analysed. */
  checkpointMemo?: CheckpointMemo;
}

/**
 * The bound (characters of the texts keyed on) of a one-shot analysis' evidence cache when the turns' texts do
 * not fit in the default bound, or when the transcript has one checkpoint: what does not fit is worked out again in
 * each of the sharing counts' two passes and the judging, rather than held (about 8 bytes of pieces a character:
 * this is about 17 MB). A larger cache saves only what it holds: the sharing's second pass goes backwards, so it and
 * the judging each find in the cache the turns the pass before left there, and work out the rest again. For a
 * transcript of more than 32M characters, a cache of 8M characters saved at most a sixth of that work for some
 * 60 MB more (at 3M turns about 1%); see docs/performance-history.md, "Columns, a filter of four places, a smaller cache".
 */
export const ONE_SHOT_EVIDENCE_CHARS = 2 * 1024 * 1024;

/**
 * A one-shot analysis' file moves its turns' texts to a temporary file past this many characters (32M: a
 * transcript of about 100k turns and more): past what the default evidence cache holds.
 */
export const TEXTS_ON_DISK_CHARS = DEFAULT_EVIDENCE_CACHE_CHARS;

/**
 * A one-shot analysis' evidence cache: a small one (ONE_SHOT_EVIDENCE_CHARS) for a transcript of one checkpoint or
 * none, or whose turns' texts do not fit in the default; else the default. A checkpoint's claimed turns that hold
 * more text than the small cache are then asked for as one long pass, which keeps none of their evidence and works
 * it out in each of the three passes: for one checkpoint, that costs no more time than keeping it all, whose pieces
 * the collector then carries, and keeps far less (`check` of a generated 80k-turn file: 5.5–10.0 s either way over
 * 13 pairs, peak RSS 258–307 MB against 416–449 MB; docs/performance-history.md, "One checkpoint's evidence not kept by
 * `check`"). Several checkpoints ask for the turns they share once each, so they keep the default while the texts
 * fit in it.
 */
function oneShotEvidenceCache(file: TranscriptFile): EvidenceCache {
  // Texts moved to disk are past the default's bound (TEXTS_ON_DISK_CHARS): not read back to be added up.
  if (file.textsOnDisk) return new EvidenceCache({ maxChars: ONE_SHOT_EVIDENCE_CHARS });
  const transcript = file.transcript;
  if (!Array.isArray(transcript.checkpoints) || transcript.checkpoints.length <= 1) {
    return new EvidenceCache({ maxChars: ONE_SHOT_EVIDENCE_CHARS });
  }
  let chars = 0;
  for (const turn of Array.isArray(transcript.turns) ? transcript.turns : []) {
    chars += typeof turn?.text === 'string' ? turn.text.length : 0;
    if (chars > DEFAULT_EVIDENCE_CACHE_CHARS) return new EvidenceCache({ maxChars: ONE_SHOT_EVIDENCE_CHARS });
  }
  return new EvidenceCache();
}

/**
 * How a file whose texts went to disk has its tokens counted: in one worker, the texts read 1M characters at a
 * time, all before the judging, and the worker ended once they are counted (the judging goes on for much longer:
 * at 1M Claude Code turns, a minute). The worker, with the texts it is sent, is then never held beside the
 * judging's tables (docs/performance-history.md, "Turn indexes, not turn ids…": 722,912 → 644,152 KiB at 1M turns with the
 * smaller groups and columns).
 */
export const LEAN_COUNTING: CountPlan = { maxWorkers: 1, groupChars: 1024 * 1024, retireAfter: true, beforeJudging: true };

/** Share of the progress given to reading the file; counting tokens takes the rest. */
const READING_SHARE = 0.4;

/**
 * The analysis running with each checkpoint memo. Analyses in slices interleave, and a memo follows one snapshot
 * at a time (its indexes are synced to it, and what an analysis keeps in it is taken as true of it), so an
 * analysis of a file waits for the one before it with the same memo.
 */
const runningWith = new WeakMap<CheckpointMemo, Promise<unknown>>();

/**
 * Counts, in `pool`'s workers, what the analysis of `transcript` will count (into `tokenCache`) while judging
 * its checkpoints' turns here (with `evidenceCache`), then analyses, without tokenizing, taking those
 * judgements; both in slices. With a checkpoint memo, it starts after the analysis before it with that memo
 * ends. Rejects only when `signal` aborts or the pool is disposed meanwhile.
 */
export async function analyzeTranscript(
  transcript: Transcript,
  caches: FileCaches,
  pool: TokenPool,
  options: AnalysisOptions,
  progress: ProgressOptions = {},
): Promise<Analysis> {
  const memo = caches.checkpointMemo;
  if (!memo) return analyzeNow(transcript, caches, pool, options, progress);
  const before = runningWith.get(memo) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => analyzeNow(transcript, caches, pool, options, progress));
  runningWith.set(memo, run);
  try {
    return await run;
  } finally {
    if (runningWith.get(memo) === run) runningWith.delete(memo);
  }
}

async function analyzeNow(
  transcript: Transcript,
  caches: FileCaches,
  pool: TokenPool,
  options: AnalysisOptions,
  progress: ProgressOptions,
): Promise<Analysis> {
  const { onProgress } = progress;
  const { tokenCache } = caches;
  // Without the file's memo, one for this analysis alone: its counting, judging and analysis index the turns once.
  // It sees only this snapshot, whose array no reader changes (each snapshot's is new), so it keeps no copy of it.
  const checkpointMemo = caches.checkpointMemo ?? new CheckpointMemo({ oneSnapshot: true });
  const evidenceCache = caches.evidenceCache ?? new EvidenceCache();
  // What to count, worked out in slices before the judging starts: both sync the memo, one at a time.
  // Texts read back a group at a time (on disk) are not gathered in a set to name each once (the counting skips
  // those already counted), nor scanned for their bounds after the judging (see ProgressOptions.countPlan).
  const textsOnDisk = progress.countPlan?.groupChars !== undefined;
  const toCount = await inSlices(textsToCountInSteps(transcript, tokenCache, checkpointMemo, textsOnDisk), progress.signal);
  // Verdicts that rest on no judgement are said first, before the counting starts (tiktoken's load beside this
  // scan slowed it on two cores): the claimed prefixes' lower bounds are worked out (a real session's in 10–20 ms)
  // only until each is over its ceiling, and kept for the bounds' analysis.
  const bounds = progress.bounds ?? new Map<string, Bounds>();
  const pattern = piecePatternOf(options.encoding);
  let allSaid = false;
  if (progress.onVerdict) {
    const verdicts = await inSlices(
      verdictsBeforeJudging(transcript, tokenCache, options.ratioFloor, pattern, bounds, progress.failsClosed),
      progress.signal,
    );
    if (verdicts.some((v) => v.verdict !== undefined)) {
      progress.onVerdict(verdicts);
      allSaid = verdicts.every((v) => v.verdict !== undefined);
    }
  }
  // Progress: counting and judging go on together; the fraction is the one behind, the message says what is left.
  const shares = { counted: 0, judged: 0 };
  const report = (): void => {
    if (!onProgress) return;
    const { counted: c, judged: j } = shares;
    const message = c < 1 ? `counting tokens… ${Math.floor(c * 100)}%` : `judging turns… ${Math.floor(j * 100)}%`;
    onProgress(Math.min(c, j), message);
  };
  const counting = warmTokenCache(
    toCount,
    tokenCache,
    pool,
    options.encoding,
    (done, total) => {
      shares.counted = total > 0 ? done / total : 1;
      report();
    },
    progress.signal,
    progress.countPlan,
  );
  let counted = false;
  counting.then(
    () => {
      counted = true;
      shares.counted = 1;
    },
    () => undefined, // awaited below; a rejection meanwhile is not unhandled
  );
  // What the judging, the bounds' analysis and the exact analysis share. The judgements are made here and let go
  // with this analysis: they hold for this snapshot only.
  const judgements = new JudgementCache();
  const shared = {
    evidenceCache,
    judgements,
    ratioFloor: options.ratioFloor,
    coverageThreshold: options.coverageThreshold,
    turnSink: progress.turnSink,
  };
  const judging = {
    ...shared,
    tokenCache,
    checkpointMemo,
    onProgress: (done: number, total: number) => {
      shares.judged = total > 0 ? done / total : 1;
      report();
    },
  };
  try {
    // A lean count is done, and its worker ended, before the judging makes its tables: the two are not held at once.
    if (progress.countPlan?.beforeJudging === true) await counting;
    await judgeInWorkerFirst(transcript, judging, progress, judging.onProgress);
    // What no worker judged (all of it, without one) is judged here.
    await inSlices(judgeAhead(transcript, judging), progress.signal);
  } catch (error) {
    await counting.catch(() => undefined); // the counting stops with the same abort
    throw error;
  }
  if (progress.onVerdict && !textsOnDisk && !allSaid && !counted && !progress.signal?.aborted) {
    // The uncounted texts' pieces are scanned for their lower bounds (20–130 ms for a real session's 330 KB), in
    // slices, while the worker is still loading or counting; then, every checkpoint being judged, the analysis
    // from the bounds only adds them up. When the counts come in meanwhile, the scan stops: the exact analysis
    // is as near as the bounds' one.
    const texts = [...toCount.turns.map((turn) => (typeof turn.text === 'string' ? turn.text : '')), ...toCount.summaries];
    const scanned = await inSlices(
      stepsUntil(boundsInSteps(texts, pattern, bounds), () => counted),
      progress.signal,
    );
    const early = scanned && !counted ? verdictFromBounds(transcript, tokenCache, shared, bounds) : undefined;
    if (early) progress.onVerdict(early.checkpoints.map(({ summaryId, verdict }) => ({ summaryId, verdict })));
  }
  const countTokens = await counting;
  return inSlices(analyzeInSteps(transcript, { ...shared, countTokens, tokenCache, checkpointMemo }), progress.signal);
}

/**
 * With ProgressOptions.judgeWorker, judges in a worker the checkpoints judgeAhead would judge here, when they are
 * enough work, into `options.judgements`. A worker's failure is reported to onFallback, not thrown; an abort is.
 */
async function judgeInWorkerFirst(
  transcript: Transcript,
  options: Parameters<typeof judgeAhead>[1],
  progress: ProgressOptions,
  onJudged: (done: number, total: number) => void,
): Promise<void> {
  const worker = progress.judgeWorker;
  if (!worker || progress.turnSink) return;
  const plan = await inSlices(checkpointsToJudge(transcript, options), progress.signal);
  const claimed = plan.reduce((sum, p) => sum + p.claimed, 0);
  if (plan.length === 0 || claimed < (worker.minTurns ?? JUDGE_IN_WORKER_TURNS)) return;
  try {
    const only = plan.map(({ index }) => index);
    const run = { signal: progress.signal, onProgress: onJudged };
    if (worker.worker) await worker.worker.judge(transcript, only, options, options.judgements, run);
    else await judgeInWorker(transcript, only, options, options.judgements, { ...run, workerFile: worker.workerFile });
  } catch (error) {
    if (progress.signal?.aborted) throw error;
    worker.onFallback?.(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Opens `path` and analyses it. Throws UnusableTranscriptError when the file cannot be used at all (a
 * TranscriptTooLargeError when the heap nearly ran out on it), and an AbortError when `signal` aborts.
 */
export function analyzeFile(
  path: string,
  open: Omit<OpenOptions, 'signal' | 'onProgress'>,
  pool: TokenPool,
  options: AnalysisOptions,
  progress: ProgressOptions = {},
): Promise<AnalysedFile> {
  const { onProgress } = progress;
  // A transcript too large for the heap is stopped with a TranscriptTooLargeError, not left to crash the process.
  return underMemoryWatch(path, progress.signal, async (signal) => {
    const bounds = new Map<string, Bounds>();
    const failsClosed = new WeakSet<Checkpoint>();
    const { onVerdict } = progress;
    // With verdicts to say, the token worker starts once one is said while reading, or else once the file is read
    // (below).
    const sayWhileReading =
      onVerdict &&
      ((verdicts: readonly CheckpointVerdict[]): void => {
        onVerdict(verdicts);
        pool.start();
      });
    const whileReading = sayWhileReading && verdictsWhileReading(sayWhileReading, options, { bounds, failsClosed }, signal);
    const opening = TranscriptFile.open(path, {
      ...open,
      readOnce: progress.oneShot === true,
      textsOnDiskPast: progress.oneShot === true ? (open.textsOnDiskPast ?? TEXTS_ON_DISK_CHARS) : undefined,
      signal,
      onProgress: onProgress && ((read, total) => onProgress(total > 0 ? (READING_SHARE * read) / total : 0, 'reading…')),
      onSettledCheckpoints: whileReading?.give,
    });
    // With no verdict to say while reading, the token worker starts now, its start-up beside the read.
    if (!onVerdict) pool.start();
    // While the file's first bytes are awaited, the bounds' expression is compiled.
    prepareSurePieces(piecePatternOf(options.encoding));
    const file = await opening;
    // With verdicts to say, the token worker starts once the file is read, unless a verdict said while reading
    // started it; it loads tiktoken with the first count, once the verdicts before the judging are said. Started
    // before the read, it held the verdicts said while reading back on two cores (`4d5611e5`: 70–81 ms against
    // 59–63 in paired runs); started only after the read, it left the full analysis some 15–25 ms longer, its start
    // then in the way of the first count. Loading tiktoken beside the read made the read about a quarter slower
    // (docs/performance-history.md, "The token worker started after the first verdict").
    pool.start();
    await whileReading?.done();
    // The CLI has nothing to let through.
    if (progress.oneShot !== true) await afterWholeRead();
    if (file.textsOnDisk) progress.collectGarbage?.();
    onProgress?.(READING_SHARE, 'counting tokens…');
    // Texts on disk are not kept in memory by the cache's keys either.
    const tokenCache: TokenCache = file.textsOnDisk ? new DigestTokenCache() : new Map();
    const oneShot = progress.oneShot === true;
    const evidenceCache = oneShot ? oneShotEvidenceCache(file) : new EvidenceCache();
    const checkpointMemo = new CheckpointMemo();
    progress.onRead?.(file.transcript);
    const caches: FileCaches = oneShot ? { tokenCache, evidenceCache } : { tokenCache, evidenceCache, checkpointMemo };
    const analysis = await analyzeTranscript(file.transcript, caches, pool, options, {
      signal,
      onProgress: onProgress && ((fraction, message) => onProgress(READING_SHARE + (1 - READING_SHARE) * fraction, message)),
      onVerdict: progress.onVerdict,
      // A sink only for an analysis run once: with a sink the core neither reuses nor keeps a checkpoint's analysis,
      // so the file's memo would only cost.
      turnSink: oneShot ? progress.turnSink : undefined,
      countPlan: file.textsOnDisk ? LEAN_COUNTING : undefined,
      judgeWorker: progress.judgeWorker,
      bounds,
      failsClosed,
    });
    if (oneShot) evidenceCache.clear();
    onProgress?.(1, 'done');
    return { file, analysis, tokenCache, evidenceCache, checkpointMemo };
  });
}

/**
 * Says, while a file is read, the verdicts of the checkpoints its reader has settled (OpenOptions.
 * onSettledCheckpoints) that rest on no judgement, as verdictsBeforeJudging works them out after the read: a
 * settled checkpoint and the turns before it are the same then. No count is known yet; the bounds worked out
 * and the checkpoints found fail-closed go into `worked`, for the analysis to take. Each transcript given is worked out in slices, the first of them at
 * once (the read goes on after it), the next transcript's after it. `done` waits for what was given.
 */
function verdictsWhileReading(
  onVerdict: (verdicts: readonly CheckpointVerdict[]) => void,
  options: AnalysisOptions,
  worked: { bounds: Map<string, Bounds>; failsClosed: WeakSet<Checkpoint> },
  signal: AbortSignal,
): { give: (transcript: Transcript) => void; done: () => Promise<void> } {
  const pattern = piecePatternOf(options.encoding);
  let pending = 0;
  let last: Promise<void> = Promise.resolve();
  const say = (verdicts: readonly CheckpointVerdict[]): void => {
    if (verdicts.some((v) => v.verdict !== undefined)) onVerdict(verdicts);
  };
  const work = (transcript: Transcript): Promise<void> =>
    inSlicesThen(verdictsBeforeJudging(transcript, new Map(), options.ratioFloor, pattern, worked.bounds, worked.failsClosed), say, signal)
      .catch(() => undefined) // aborted: the read stops with the same signal, and says so
      .finally(() => pending--);
  return {
    give: (transcript) => {
      pending++;
      last = pending === 1 ? work(transcript) : last.then(() => work(transcript));
    },
    done: () => last,
  };
}

/** What analyzeAgain found: how the file changed, and the analysis of its snapshot when it changed. */
export interface Reanalysis {
  /** What the file's re-read found; 'not-read' when it was analysed as it was. */
  change: 'unchanged' | 'appended' | 'reloaded' | 'not-read';
  /** The snapshot analysed (the file's current one, unless another read came after). */
  transcript: Transcript;
  /** undefined when the file was unchanged or no longer wanted. */
  analysis?: Analysis;
}

/**
 * Lets the event loop turn after a whole file's read, before its analysis: the read's last step (the reader's
 * build: a Claude Code claim's walk back) and the counting's first slice are then two blocks on the extension host,
 * not one (docs/performance-history.md, "A Claude Code claim joined as read; the read's last step a block of its own"). A
 * timer, not a setImmediate, which right after I/O runs before the loop's timers and so would not split them. An
 * appended turn's read is short, and does not wait.
 */
function afterWholeRead(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Analyses an open file again: first reading what it gained when `reread` (a live file), or all of it again when
 * `reread` is 'anew' (an edit may be anywhere), else its current snapshot as it is (new settings). Under the same
 * heap watch as analyzeFile: a file that grew too large for the heap throws a TranscriptTooLargeError, after which
 * it is not to be read again (its reading stopped midway). Not analysed (no `analysis`) when the file is unchanged,
 * or when `wanted` says after the read that the analysis is no longer needed (the file was let go meanwhile).
 * `judgeWorker` as ProgressOptions.judgeWorker: what the memo does not hold (new settings: every checkpoint) is
 * judged in a worker when it is enough work.
 */
export async function analyzeAgain(
  file: TranscriptFile,
  caches: FileCaches,
  pool: TokenPool,
  options: AnalysisOptions,
  reread: boolean | 'anew',
  wanted: () => boolean = () => true,
  judgeWorker?: ProgressOptions['judgeWorker'],
): Promise<Reanalysis> {
  return underMemoryWatch(file.path, undefined, async (signal) => {
    const change = reread ? await file.refresh(signal, reread === 'anew') : 'not-read';
    const transcript = file.transcript;
    if (change === 'unchanged' || !wanted()) return { change, transcript };
    if (change === 'reloaded') await afterWholeRead();
    const analysis = await analyzeTranscript(transcript, caches, pool, options, { signal, judgeWorker });
    return { change, transcript, analysis };
  });
}

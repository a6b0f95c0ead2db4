// The cache of analysed transcripts: one per file URI, read and analysed once (analyzeFile: tokens counted in
// worker threads, never in the extension host's thread), re-read and re-analysed on request (only the appended
// bytes when a file grew; one token cache and one evidence cache per file, so nothing is re-tokenized and a
// turn's evidence is worked out once; both go with the file when it is dropped), and told listeners when an
// analysis changes or a transcript is dropped. Memory is bounded: full entries are kept only for the files
// something holds (an editor of the file or of its decompressed view, a timeline panel through
// `hold`) and for the RECENT_FULL_ENTRIES most recently loaded others; any other file is demoted to its digest
// (view/analysisDigest.ts), which the checkpoints tree lists, and whoever needs it in full again calls `load`,
// which reads it again. A large file's judging worker thread is kept with its full entry, holding the evidence it
// worked out, for at most JUDGE_WORKERS_KEPT files at a time, and ends once nothing holds a file that was held.
// Watching files for changes is liveTranscripts.ts's job; progress and error messages are the commands'
// (openTranscript.ts).
import * as vscode from 'vscode';
import { fileNameOf } from '../core/displayText';
import { CheckpointMemo } from '../core/checkpointMemo';
import type { EvidenceCache } from '../core/evidenceCache';
import type { Analysis, AnalysisDigest, TokenCache, Transcript, TurnId } from '../core/model';
import { analyzeAgain, analyzeFile, type ProgressOptions, type Reanalysis } from '../node/analyzeFile';
import { JudgeWorker } from '../node/judgeInWorker';
import { TranscriptTooLargeError } from '../node/memoryWatch';
import { TokenPool } from '../node/tokenPool';
import { TranscriptFile, UnusableTranscriptError } from '../node/transcriptFile';
import { digestAnalysis } from '../view/analysisDigest';
import { decompressedUri, transcriptUriOf } from './decompressedDocument';
import { Disposable } from './dispose';
import type { Log } from './log';
import { LIMIT_SETTING_NAMES, readSettings, type Settings } from './settings';

/** An analysed file as the checkpoints tree lists it: its digest, whether or not its full entry is in memory. */
export interface TranscriptDigest {
  readonly uri: vscode.Uri;
  /** The document its records are shown in (see AnalysedTranscript.documentUri). */
  readonly documentUri: vscode.Uri;
  readonly analysis: AnalysisDigest;
}

/** A transcript file with its current snapshot and the analysis of that snapshot. */
export class AnalysedTranscript {
  /** Bumped on every re-analysis. */
  version = 1;
  /** The checkpoint analyses a re-analysis reuses when an append did not change them (core/checkpointMemo.ts). */
  checkpointMemo = new CheckpointMemo();
  /**
   * The document the raw records are shown in (revealed, flagged, annotated): the file itself, or for a
   * gzip-compressed transcript its read-only decompressed view (decompressedDocument.ts), with the same lines.
   */
  readonly documentUri: vscode.Uri;
  private lineIndex?: { starts: number[]; indexes: number[] };
  private idIndex?: Map<string, number>;
  private digested?: { version: number; digest: TranscriptDigest };

  constructor(
    readonly uri: vscode.Uri,
    readonly file: TranscriptFile,
    public transcript: Transcript,
    public analysis: Analysis,
    public tokenCache: TokenCache,
    readonly evidenceCache: EvidenceCache,
  ) {
    this.documentUri = file.compressed ? decompressedUri(uri) : uri;
  }

  get name(): string {
    return fileNameOf(this.uri.path);
  }

  /** The digest of the current analysis (made once per version). */
  get digest(): TranscriptDigest {
    if (this.digested?.version !== this.version) {
      const digest = { uri: this.uri, documentUri: this.documentUri, analysis: digestAnalysis(this.transcript, this.analysis) };
      this.digested = { version: this.version, digest };
    }
    return this.digested.digest;
  }

  update(transcript: Transcript, analysis: Analysis): void {
    this.transcript = transcript;
    this.analysis = analysis;
    this.version++;
    this.lineIndex = undefined;
    this.idIndex = undefined;
  }

  /** Index of the turn whose record covers the 1-based `line`, if any. */
  turnAtLine(line: number): number | undefined {
    if (!this.lineIndex) {
      const order = this.transcript.turns.map((_, index) => index);
      order.sort((a, b) => this.transcript.turns[a].span.startLine - this.transcript.turns[b].span.startLine);
      this.lineIndex = { starts: order.map((index) => this.transcript.turns[index].span.startLine), indexes: order };
    }
    const { starts, indexes } = this.lineIndex;
    let low = 0;
    let high = starts.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (starts[middle] <= line) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (found < 0) return undefined;
    const index = indexes[found];
    return this.transcript.turns[index].span.endLine >= line ? index : undefined;
  }

  /** Index of the first turn with this id. */
  turnIndexOfId(id: TurnId): number | undefined {
    if (!this.idIndex) {
      this.idIndex = new Map();
      this.transcript.turns.forEach((turn, index) => {
        const key = String(turn.id);
        if (!this.idIndex!.has(key)) this.idIndex!.set(key, index);
      });
    }
    return this.idIndex.get(String(id));
  }
}

/**
 * The evidence of this many most recently analysed files stays cached between analyses (a live file's appends
 * re-analyse it, so it stays among them); the others' is dropped, so analysing a whole workspace does not keep
 * every transcript's evidence in memory.
 */
export const EVIDENCE_CACHED_FILES = 8;

/**
 * The judging worker threads kept between analyses, with the evidence each worked out: those of this many most
 * recently analysed large files (judged in a worker: node/judgeInWorker.ts). A file something held (an editor, a
 * tab, a timeline panel) since its worker was kept loses the worker once nothing holds it: the first change of
 * tabs, editors or holds that finds it held by nothing ends the thread. (A file analysed and never shown, by
 * Analyze Workspace, keeps it until it is demoted or another large file is analysed.) A worker holds an evidence
 * cache as large as a file's in the host (DEFAULT_EVIDENCE_CACHE_CHARS): for a generated 100k-turn file, about
 * 290 MB of heap after a collection when measured (some 40 MB less since the sharing counts keep nothing per turn),
 * and RSS 350 MB above the same process without it. So only the last file's is
 * kept; a re-analysis of it that judges every turn again (a turn or claim changed early in the file) then takes
 * about 3 s instead of 5.5 s. (Another coverage threshold needs no worker: the turns as judged are re-weighed.)
 */
export const JUDGE_WORKERS_KEPT = 1;

/**
 * Full entries kept, besides those of held files, for this many most recently loaded files; the others are
 * demoted to their digests, so Analyze Workspace over thousands of files keeps only these in memory.
 */
export const RECENT_FULL_ENTRIES = 8;

/** What a change of settings asks of the analysed transcripts. */
export interface SettingsChange {
  /** The reader's inputs changed (assumed budgets, decompression limits): every file is read again. */
  reread: boolean;
  /** The analysis' inputs changed (ratio floor, threshold, encoding): every transcript is analysed again. */
  reanalyse: boolean;
}

export class TranscriptStore extends Disposable {
  private readonly entries = new Map<string, AnalysedTranscript>();
  /** The full entries' keys, least recently loaded first. */
  private readonly recent = new Set<string>();
  /** The files demoted to their digests (never also in `entries`). */
  private readonly digested = new Map<string, TranscriptDigest>();
  /** Files held by a timeline panel (through LiveTranscripts.hold): how many holds each. */
  private readonly holds = new Map<string, number>();
  private readonly loading = new Map<string, Promise<AnalysedTranscript>>();
  /** Changes of settings being applied (applySettings). */
  private applyingSettings = 0;
  private readonly refreshing = new Map<string, Promise<void>>();
  private readonly changed = this.register(new vscode.EventEmitter<AnalysedTranscript>());
  private readonly removed = this.register(new vscode.EventEmitter<vscode.Uri>());
  private readonly demoted = this.register(new vscode.EventEmitter<vscode.Uri>());
  private readonly lastRefreshError = new Map<string, string>();
  /** The files whose evidence stays cached, least recently analysed first (see EVIDENCE_CACHED_FILES). */
  private readonly evidenceKept = new Map<string, AnalysedTranscript>();
  /** Each full entry's judging worker, least recently analysed first; at most JUDGE_WORKERS_KEPT idle ones keep a thread. */
  private readonly judgeWorkers = new Map<string, JudgeWorker>();
  /** The files of `judgeWorkers` something held since their worker was kept: theirs ends once nothing does (trim). */
  private readonly judgeWorkersHeld = new Set<string>();
  private settings: Settings;
  /** Counts tokens in worker threads; ended with the store (on deactivation). */
  readonly tokenPool: TokenPool;

  /** Fires after a transcript was analysed for the first time or re-analysed. */
  readonly onDidChange = this.changed.event;
  /** Fires when a transcript was dropped (deleted, or no longer readable). */
  readonly onDidRemove = this.removed.event;
  /**
   * Fires when a transcript's full entry was let go, its digest kept (nothing holds it and it is not among the
   * most recently loaded). Its diagnostics and tree item stay; `get` no longer returns it, `load` reads it again.
   */
  readonly onDidDemote = this.demoted.event;

  constructor(private readonly log: Log) {
    super();
    this.settings = readSettings((message) => log.warn(message));
    this.tokenPool = new TokenPool({
      onFallback: (reason) => log.warn(`${reason}; counting tokens in the extension host's thread instead`),
    });
    this.register({ dispose: () => this.tokenPool.dispose() });
    this.register({
      dispose: () => {
        for (const worker of this.judgeWorkers.values()) worker.dispose();
        this.judgeWorkers.clear();
      },
    });
    // A file no editor shows any more may be demoted.
    this.register(vscode.window.tabGroups.onDidChangeTabs((event) => event.closed.length > 0 && this.trim()));
    this.register(vscode.window.onDidChangeVisibleTextEditors(() => this.trim()));
  }

  /** The full entry of `uri`, when it is in memory (not demoted); `load` gets it in any case. */
  get(uri: vscode.Uri): AnalysedTranscript | undefined {
    return this.entries.get(uri.toString());
  }

  /** The digest of an analysed file, full or demoted. */
  digest(uri: vscode.Uri): TranscriptDigest | undefined {
    const key = uri.toString();
    return this.entries.get(key)?.digest ?? this.digested.get(key);
  }

  /** Every analysed file's digest, full or demoted, by path. */
  digests(): TranscriptDigest[] {
    const all = [...[...this.entries.values()].map((entry) => entry.digest), ...this.digested.values()];
    return all.sort((a, b) => a.uri.fsPath.localeCompare(b.uri.fsPath));
  }

  /** True when `uri` was analysed and demoted to its digest: `load` reads it again. */
  isDemoted(uri: vscode.Uri): boolean {
    return this.digested.has(uri.toString());
  }

  /** How many full entries are in memory (held files', and at most RECENT_FULL_ENTRIES others). */
  get fullEntryCount(): number {
    return this.entries.size;
  }

  /** The judging worker kept for `uri` (after an analysis of it; its thread runs once a large one was judged). */
  judgeWorkerOf(uri: vscode.Uri): JudgeWorker | undefined {
    return this.judgeWorkers.get(uri.toString());
  }

  /** Keeps the full entry of `uri` (once loaded) until the returned disposable is disposed. */
  hold(uri: vscode.Uri): vscode.Disposable {
    const key = uri.toString();
    this.holds.set(key, (this.holds.get(key) ?? 0) + 1);
    if (this.judgeWorkers.has(key)) this.judgeWorkersHeld.add(key);
    let released = false;
    return new vscode.Disposable(() => {
      if (released) return;
      released = true;
      const count = (this.holds.get(key) ?? 1) - 1;
      if (count > 0) this.holds.set(key, count);
      else this.holds.delete(key);
      this.trim();
    });
  }

  /** The analysed transcript shown in the document `uri`: the file's own, or the one behind a decompressed view. */
  forDocument(uri: vscode.Uri): AnalysedTranscript | undefined {
    const file = transcriptUriOf(uri);
    return file ? this.get(file) : undefined;
  }

  /** The full entries in memory, by path (`digests` lists every analysed file). */
  all(): AnalysedTranscript[] {
    return [...this.entries.values()].sort((a, b) => a.uri.fsPath.localeCompare(b.uri.fsPath));
  }

  /** True while `uri` is being re-read. */
  isRefreshing(uri: vscode.Uri): boolean {
    return this.refreshing.has(uri.toString());
  }

  /** True while a file is being loaded or re-read, or a change of settings applied (tests wait for quiet). */
  get working(): boolean {
    return this.loading.size > 0 || this.refreshing.size > 0 || this.applyingSettings > 0;
  }

  /** The analysed transcript of `uri`, reading and analysing it first when needed. Throws on failure. */
  load(uri: vscode.Uri, progress: ProgressOptions = {}): Promise<AnalysedTranscript> {
    const key = uri.toString();
    const existing = this.entries.get(key);
    if (existing) {
      this.recent.delete(key);
      this.recent.add(key);
      return Promise.resolve(existing);
    }
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.loadNow(uri, progress)
        .catch((error: unknown) => {
          // A demoted file that is gone or no longer a transcript is dropped as a full one would be.
          if (error instanceof UnusableTranscriptError && this.digested.delete(key)) this.removed.fire(uri);
          throw error;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /**
   * Re-reads the file now (appended bytes only when it grew; with `anew`, as after a save from an editor, whose
   * edit may be anywhere, all of it unless it still begins with every byte read before) and re-analyses it if it
   * changed.
   */
  refresh(uri: vscode.Uri, anew = false): Promise<void> {
    const key = uri.toString();
    const previous = this.refreshing.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.refreshNow(key, anew));
    this.refreshing.set(key, next);
    void next.finally(() => {
      if (this.refreshing.get(key) === next) this.refreshing.delete(key);
    });
    return next;
  }

  /** Forgets a transcript (its diagnostics, tree items, panels and watcher follow through onDidRemove). */
  remove(uri: vscode.Uri): void {
    const key = uri.toString();
    this.evidenceKept.delete(key);
    this.endJudgeWorker(key);
    this.recent.delete(key);
    const full = this.entries.delete(key);
    if (!this.digested.delete(key) && !full) return;
    this.removed.fire(uri);
  }

  /** Takes new settings; says what the analysed transcripts need for them (see applySettings). */
  updateSettings(settings: Settings): SettingsChange {
    const previous = this.settings;
    this.settings = settings;
    const budgets = JSON.stringify(previous.defaultSummaryBudget) !== JSON.stringify(settings.defaultSummaryBudget);
    const reread =
      budgets || previous.maxInflatedBytes !== settings.maxInflatedBytes || previous.maxInflateRatio !== settings.maxInflateRatio;
    const newTokens = previous.encoding !== settings.encoding;
    // Every cache at once: a refresh meanwhile must not analyse with counts of the old encoding.
    if (newTokens) for (const entry of this.entries.values()) entry.tokenCache = new Map();
    const reanalyse = newTokens || previous.ratioFloor !== settings.ratioFloor || previous.coverageThreshold !== settings.coverageThreshold;
    return { reread, reanalyse };
  }

  /** Reads again or re-analyses every transcript, as `change` says; a file that can no longer be read is dropped. */
  async applySettings(change: SettingsChange): Promise<void> {
    this.applyingSettings++;
    try {
      await this.applySettingsNow(change);
    } finally {
      this.applyingSettings--;
    }
  }

  private async applySettingsNow(change: SettingsChange): Promise<void> {
    // Demoted files are read again either way (they keep no transcript to re-analyse), one at a time, so
    // memory stays bounded; their digests stay listed until then.
    const demoted = [...this.digested.values()].map((digest) => digest.uri);
    if (change.reread) {
      const full = this.all();
      for (const entry of full) this.demote(entry);
      this.evidenceKept.clear();
      for (const uri of [...full.map((entry) => entry.uri), ...demoted]) await this.loadAgain(uri);
      return;
    }
    if (!change.reanalyse) return;
    for (const entry of this.all()) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      try {
        await this.reanalyse(entry, false);
      } catch (error) {
        if (error instanceof UnusableTranscriptError) this.drop(entry, error);
        else if (!this.tokenPool.disposed) this.log.error(`re-analysing ${entry.uri.fsPath}`, error);
      }
    }
    for (const uri of demoted) if (this.digested.has(uri.toString())) await this.loadAgain(uri);
  }

  /** Loads a file again after a change of settings; one that can no longer be read is dropped. */
  private async loadAgain(uri: vscode.Uri): Promise<void> {
    try {
      await this.load(uri);
    } catch (error) {
      this.log.info(`not analysed again: ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
      // load already dropped (and announced) a demoted file it could not read: announce it once.
      if (this.digested.delete(uri.toString())) this.removed.fire(uri);
    }
  }

  /**
   * The files something holds: those of open editor tabs and visible text editors (a decompressed view stands
   * for its .gz) and those held through `hold` (timeline panels). Text documents without an editor are not
   * counted: VS Code keeps closed ones around for a while.
   */
  private heldKeys(): Set<string> {
    const held = new Set(this.holds.keys());
    const add = (uri: unknown) => {
      const file = uri instanceof vscode.Uri ? transcriptUriOf(uri) : undefined;
      if (file) held.add(file.toString());
    };
    for (const editor of vscode.window.visibleTextEditors) add(editor.document.uri);
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input: unknown = tab.input;
        if (!input || typeof input !== 'object') continue;
        // TabInputText, TabInputCustom, TabInputNotebook have the resource as `uri`; TabInputTextDiff has two.
        if ('uri' in input) add(input.uri);
        if ('original' in input) add(input.original);
        if ('modified' in input) add(input.modified);
      }
    }
    return held;
  }

  /**
   * Ends the judging workers of the files held since their worker was kept that nothing holds now, and demotes the
   * full entries beyond the RECENT_FULL_ENTRIES most recently loaded that nothing holds. Called when a tab closes,
   * the visible editors change or a hold is released.
   */
  private trim(): void {
    if (this.isDisposed) return;
    const held = this.heldKeys();
    // A worker's evidence is only worth its memory while the file is shown: the analyses it speeds up (a live file's
    // changed turns or new compaction) are of files someone looks at.
    for (const key of [...this.judgeWorkers.keys()]) {
      if (held.has(key)) this.judgeWorkersHeld.add(key);
      else if (this.judgeWorkersHeld.has(key)) this.endJudgeWorker(key);
    }
    if (this.entries.size <= RECENT_FULL_ENTRIES) return;
    let kept = 0;
    for (const key of [...this.recent].reverse()) {
      if (held.has(key)) continue;
      if (kept < RECENT_FULL_ENTRIES) {
        kept++;
        continue;
      }
      const entry = this.entries.get(key);
      if (entry) this.demote(entry);
    }
  }

  /** Keeps the entry's digest and lets the rest go (without onDidRemove: its diagnostics and tree item stay). */
  private demote(entry: AnalysedTranscript): void {
    const key = entry.uri.toString();
    this.digested.set(key, entry.digest);
    this.entries.delete(key);
    this.recent.delete(key);
    this.lastRefreshError.delete(key);
    // Its caches go too, even while someone still has the object (a status bar showing it a moment longer).
    if (this.evidenceKept.delete(key)) entry.evidenceCache.clear();
    this.endJudgeWorker(key);
    entry.checkpointMemo = new CheckpointMemo();
    this.demoted.fire(entry.uri);
  }

  /** Marks the entry's evidence as most recently used; drops the evidence of files beyond EVIDENCE_CACHED_FILES. */
  private keepEvidence(entry: AnalysedTranscript): void {
    const key = entry.uri.toString();
    this.evidenceKept.delete(key);
    this.evidenceKept.set(key, entry);
    for (const [oldKey, old] of this.evidenceKept) {
      if (this.evidenceKept.size <= EVIDENCE_CACHED_FILES) break;
      old.evidenceCache.clear();
      this.evidenceKept.delete(oldKey);
    }
  }

  /**
   * How an analysis of `uri` judges: a large analysis's turns in a worker thread, not in the host's slices (a failure
   * is logged). The file's worker is the one kept from its last analysis, if any, so no evidence is worked out
   * again; else a new one, kept after the analysis (keepJudgeWorker) or ended (releaseJudgeWorker).
   */
  private judgeWorker(uri: vscode.Uri): { worker: JudgeWorker; onFallback: (why: string) => void } {
    return {
      worker: this.judgeWorkers.get(uri.toString()) ?? new JudgeWorker(),
      onFallback: (why) => this.log.warn(`${uri.fsPath}: judged in the extension host instead of a worker: ${why}`),
    };
  }

  /**
   * Keeps `worker` as the judging worker of the full entry `key`, the most recently used, and ends the threads of
   * idle workers beyond the JUDGE_WORKERS_KEPT most recently used that run one (a busy one is weighed after its job).
   */
  private keepJudgeWorker(key: string, worker: JudgeWorker): void {
    if (worker.ended) return; // the file was let go while it was analysed
    const kept = this.judgeWorkers.get(key);
    if (kept !== undefined && kept !== worker) {
      // Two analyses of one file made a worker each: the busy one stays (and is kept after its own analysis).
      if (!kept.idle) {
        worker.dispose();
        return;
      }
      kept.dispose();
    }
    this.judgeWorkers.delete(key);
    this.judgeWorkers.set(key, worker);
    if (this.heldKeys().has(key)) this.judgeWorkersHeld.add(key);
    let running = 0;
    for (const each of this.judgeWorkers.values()) if (each.running) running++;
    for (const [oldKey, old] of this.judgeWorkers) {
      if (running <= JUDGE_WORKERS_KEPT) break;
      if (!old.running || !old.idle) continue;
      old.dispose();
      this.judgeWorkers.delete(oldKey);
      this.judgeWorkersHeld.delete(oldKey);
      running--;
    }
  }

  /** After an analysis of `key` that is not kept (it failed, or the file was let go): its worker ends unless kept. */
  private releaseJudgeWorker(key: string, worker: JudgeWorker): void {
    if (this.judgeWorkers.get(key) !== worker) worker.dispose();
  }

  /**
   * Forgets the judging worker of file `key` and ends its thread, once an analysis under way is done with it (else
   * that analysis would judge in the host's slices instead, for a file let go).
   */
  private endJudgeWorker(key: string): void {
    this.judgeWorkers.get(key)?.retire();
    this.judgeWorkers.delete(key);
    this.judgeWorkersHeld.delete(key);
  }

  private async loadNow(uri: vscode.Uri, progress: ProgressOptions): Promise<AnalysedTranscript> {
    if (uri.scheme !== 'file') {
      throw new UnusableTranscriptError(
        `${uri.toString()} is not a file on disk; Compaction Lens reads transcripts from the local file system.`,
        uri.toString(),
      );
    }
    const settings = this.settings;
    const key = uri.toString();
    const judging = this.judgeWorker(uri);
    let analysed: Awaited<ReturnType<typeof analyzeFile>>;
    try {
      analysed = await analyzeFile(
        uri.fsPath,
        {
          defaultBudgets: settings.defaultSummaryBudget,
          // compactionLens.maxDecompressedMegabytes (in bytes) and compactionLens.maxDecompressionRatio.
          maxInflatedBytes: settings.maxInflatedBytes,
          maxInflateRatio: settings.maxInflateRatio,
          limitNames: LIMIT_SETTING_NAMES,
        },
        this.tokenPool,
        settings,
        { ...progress, judgeWorker: judging },
      );
    } catch (error) {
      this.releaseJudgeWorker(key, judging.worker);
      throw error;
    }
    const { file, analysis, tokenCache, evidenceCache, checkpointMemo } = analysed;
    const entry = new AnalysedTranscript(uri, file, file.transcript, analysis, tokenCache, evidenceCache);
    entry.checkpointMemo = checkpointMemo;
    this.entries.set(key, entry);
    this.digested.delete(key);
    this.recent.delete(key);
    this.recent.add(key);
    this.keepEvidence(entry);
    this.keepJudgeWorker(key, judging.worker);
    this.changed.fire(entry);
    this.trim();
    return entry;
  }

  private async refreshNow(key: string, anew: boolean): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    let result: Reanalysis['change'];
    try {
      result = await this.reanalyse(entry, anew ? 'anew' : true);
    } catch (error) {
      if (error instanceof UnusableTranscriptError) {
        this.drop(entry, error);
      } else if (this.tokenPool.disposed) {
        // Counting fails only when cancelled or when the store (and its token pool) is being disposed.
        return;
      } else if (this.lastRefreshError.get(key) !== String(error)) {
        // Logged once per distinct error: a poller may retry every second.
        this.lastRefreshError.set(key, String(error));
        this.log.error(`re-reading ${entry.uri.fsPath}`, error);
      }
      return;
    }
    this.lastRefreshError.delete(key);
    if (result === 'unchanged' || this.entries.get(key) !== entry) return;
    this.log.info(`${entry.name}: ${result}, ${entry.transcript.turns.length} turns, ${entry.analysis.checkpoints.length} checkpoints`);
  }

  /**
   * Forgets an entry that can no longer be used: gone, no longer a transcript, or grown too large for the heap
   * (then the user is told, since its timeline and marks go without any action of theirs).
   */
  private drop(entry: AnalysedTranscript, error: UnusableTranscriptError): void {
    this.log.info(`dropped ${entry.uri.fsPath}: ${error.message}`);
    if (this.entries.get(entry.uri.toString()) === entry) this.remove(entry.uri);
    if (error instanceof TranscriptTooLargeError) {
      void vscode.window.showWarningMessage(
        `${error.message} Compaction Lens stopped following the file; its marks and checkpoints were cleared.`,
      );
    }
  }

  /**
   * Re-analyses the entry (after reading what its file gained, when `reread`) under a heap watch (a
   * TranscriptTooLargeError when the file grew too large). Returns what the re-read found, changing nothing when
   * the entry was dropped or got a newer snapshot or token cache while its tokens were being counted (that newer
   * one is analysed too).
   */
  private async reanalyse(entry: AnalysedTranscript, reread: boolean | 'anew'): Promise<Reanalysis['change']> {
    const tokenCache = entry.tokenCache;
    const caches = { tokenCache, evidenceCache: entry.evidenceCache, checkpointMemo: entry.checkpointMemo };
    // A file dropped or demoted while it was read is not analysed.
    const key = entry.uri.toString();
    const held = () => this.entries.get(key) === entry;
    const judging = this.judgeWorker(entry.uri);
    let reanalysis: Reanalysis;
    try {
      reanalysis = await analyzeAgain(entry.file, caches, this.tokenPool, this.settings, reread, held, judging);
    } catch (error) {
      this.releaseJudgeWorker(key, judging.worker);
      throw error;
    }
    const { change, transcript, analysis } = reanalysis;
    if (held()) this.keepJudgeWorker(key, judging.worker);
    else this.releaseJudgeWorker(key, judging.worker);
    if (!analysis) return change;
    if (!held() || entry.file.transcript !== transcript || entry.tokenCache !== tokenCache) {
      return 'unchanged';
    }
    entry.update(transcript, analysis);
    this.keepEvidence(entry);
    this.changed.fire(entry);
    return change;
  }
}

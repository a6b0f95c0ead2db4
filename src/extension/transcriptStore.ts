// The cache of analysed transcripts: one per file URI, read and analysed once (analyzeFile: tokens counted in
// worker threads, never in the extension host's thread), re-read and re-analysed on request (only the appended
// bytes when a file grew; one token cache and one evidence cache per file, so nothing is re-tokenized and a
// turn's evidence is worked out once; both go with the file when it is dropped), and told listeners when an
// analysis changes or a transcript is dropped. Watching files for changes is liveTranscripts.ts's job; progress
// and error messages are the commands' (openTranscript.ts).
import * as vscode from 'vscode';
import { fileNameOf } from '../core/displayText';
import { CheckpointMemo } from '../core/checkpointMemo';
import type { EvidenceCache } from '../core/evidenceCache';
import type { Analysis, TokenCache, Transcript, TurnId } from '../core/model';
import { analyzeFile, analyzeTranscript, type ProgressOptions } from '../node/analyzeFile';
import { TokenPool } from '../node/tokenPool';
import { TranscriptFile, UnusableTranscriptError } from '../node/transcriptFile';
import { decompressedUri, transcriptUriOf } from './decompressedDocument';
import { Disposable } from './dispose';
import type { Log } from './log';
import { LIMIT_SETTING_NAMES, readSettings, type Settings } from './settings';

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

/** What a change of settings asks of the analysed transcripts. */
export interface SettingsChange {
  /** The reader's inputs changed (assumed budgets, decompression limits): every file is read again. */
  reread: boolean;
  /** The analysis' inputs changed (ratio floor, threshold, encoding): every transcript is analysed again. */
  reanalyse: boolean;
}

export class TranscriptStore extends Disposable {
  private readonly entries = new Map<string, AnalysedTranscript>();
  private readonly loading = new Map<string, Promise<AnalysedTranscript>>();
  private readonly refreshing = new Map<string, Promise<void>>();
  private readonly changed = this.register(new vscode.EventEmitter<AnalysedTranscript>());
  private readonly removed = this.register(new vscode.EventEmitter<vscode.Uri>());
  private readonly lastRefreshError = new Map<string, string>();
  /** The files whose evidence stays cached, least recently analysed first (see EVIDENCE_CACHED_FILES). */
  private readonly evidenceKept = new Map<string, AnalysedTranscript>();
  private settings: Settings;
  /** Counts tokens in worker threads; ended with the store (on deactivation). */
  readonly tokenPool: TokenPool;

  /** Fires after a transcript was analysed for the first time or re-analysed. */
  readonly onDidChange = this.changed.event;
  /** Fires when a transcript was dropped (deleted, or no longer readable). */
  readonly onDidRemove = this.removed.event;

  constructor(private readonly log: Log) {
    super();
    this.settings = readSettings((message) => log.warn(message));
    this.tokenPool = new TokenPool({
      onFallback: (reason) => log.warn(`${reason}; counting tokens in the extension host's thread instead`),
    });
    this.register({ dispose: () => this.tokenPool.dispose() });
  }

  get(uri: vscode.Uri): AnalysedTranscript | undefined {
    return this.entries.get(uri.toString());
  }

  /** The analysed transcript shown in the document `uri`: the file's own, or the one behind a decompressed view. */
  forDocument(uri: vscode.Uri): AnalysedTranscript | undefined {
    const file = transcriptUriOf(uri);
    return file ? this.get(file) : undefined;
  }

  all(): AnalysedTranscript[] {
    return [...this.entries.values()].sort((a, b) => a.uri.fsPath.localeCompare(b.uri.fsPath));
  }

  /** True while `uri` is being re-read. */
  isRefreshing(uri: vscode.Uri): boolean {
    return this.refreshing.has(uri.toString());
  }

  /** The analysed transcript of `uri`, reading and analysing it first when needed. Throws on failure. */
  load(uri: vscode.Uri, progress: ProgressOptions = {}): Promise<AnalysedTranscript> {
    const key = uri.toString();
    const existing = this.entries.get(key);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.loadNow(uri, progress).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Re-reads the file now (appended bytes only when it grew) and re-analyses it if it changed. */
  refresh(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    const previous = this.refreshing.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.refreshNow(key));
    this.refreshing.set(key, next);
    void next.finally(() => {
      if (this.refreshing.get(key) === next) this.refreshing.delete(key);
    });
    return next;
  }

  /** Forgets a transcript (its diagnostics, tree items, panels and watcher follow through onDidRemove). */
  remove(uri: vscode.Uri): void {
    this.evidenceKept.delete(uri.toString());
    if (!this.entries.delete(uri.toString())) return;
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
    if (change.reread) {
      const uris = this.all().map((entry) => entry.uri);
      for (const uri of uris) this.entries.delete(uri.toString());
      this.evidenceKept.clear();
      for (const uri of uris) {
        try {
          await this.load(uri);
        } catch (error) {
          this.log.info(`not analysed again: ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
          this.removed.fire(uri);
        }
      }
      return;
    }
    if (!change.reanalyse) return;
    for (const entry of this.all()) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      try {
        await this.reanalyse(entry);
      } catch (error) {
        if (!this.tokenPool.disposed) this.log.error(`re-analysing ${entry.uri.fsPath}`, error);
      }
    }
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

  private async loadNow(uri: vscode.Uri, progress: ProgressOptions): Promise<AnalysedTranscript> {
    if (uri.scheme !== 'file') {
      throw new UnusableTranscriptError(
        `${uri.toString()} is not a file on disk; Compaction Lens reads transcripts from the local file system.`,
        uri.toString(),
      );
    }
    const settings = this.settings;
    const { file, analysis, tokenCache, evidenceCache, checkpointMemo } = await analyzeFile(
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
      progress,
    );
    const entry = new AnalysedTranscript(uri, file, file.transcript, analysis, tokenCache, evidenceCache);
    entry.checkpointMemo = checkpointMemo;
    this.entries.set(uri.toString(), entry);
    this.keepEvidence(entry);
    this.changed.fire(entry);
    return entry;
  }

  private async refreshNow(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    let result: 'unchanged' | 'appended' | 'reloaded';
    try {
      result = await entry.file.refresh();
    } catch (error) {
      if (error instanceof UnusableTranscriptError) {
        this.log.info(`dropped ${entry.uri.fsPath}: ${error.message}`);
        this.remove(entry.uri);
      } else if (this.lastRefreshError.get(key) !== String(error)) {
        // Logged once per distinct error: a poller may retry every second.
        this.lastRefreshError.set(key, String(error));
        this.log.error(`re-reading ${entry.uri.fsPath}`, error);
      }
      return;
    }
    this.lastRefreshError.delete(key);
    if (result === 'unchanged' || this.entries.get(key) !== entry) return;
    try {
      if (!(await this.reanalyse(entry))) return;
    } catch (error) {
      // Counting fails only when cancelled or when the store (and its token pool) is being disposed.
      if (!this.tokenPool.disposed) this.log.error(`re-analysing ${entry.uri.fsPath}`, error);
      return;
    }
    this.log.info(`${entry.name}: ${result}, ${entry.transcript.turns.length} turns, ${entry.analysis.checkpoints.length} checkpoints`);
  }

  /**
   * Re-analyses the entry's current snapshot. Returns false, changing nothing, when the entry was dropped or
   * got a newer snapshot or token cache while its tokens were being counted (that newer one is analysed too).
   */
  private async reanalyse(entry: AnalysedTranscript): Promise<boolean> {
    const transcript = entry.file.transcript;
    const tokenCache = entry.tokenCache;
    const caches = { tokenCache, evidenceCache: entry.evidenceCache, checkpointMemo: entry.checkpointMemo };
    const analysis = await analyzeTranscript(transcript, caches, this.tokenPool, this.settings);
    if (this.entries.get(entry.uri.toString()) !== entry || entry.file.transcript !== transcript || entry.tokenCache !== tokenCache) {
      return false;
    }
    entry.update(transcript, analysis);
    this.keepEvidence(entry);
    this.changed.fire(entry);
    return true;
  }
}

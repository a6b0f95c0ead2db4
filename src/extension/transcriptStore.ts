// One analysed transcript per file URI, cached. Opens files through TranscriptFile, analyses them with
// core/analyze (one token cache per file, so a re-analysis after an append does not re-tokenize), keeps
// them live (debounced refresh when the file changes) and tells listeners when an analysis changes.
// Tokens are counted beforehand in worker threads (TokenPool), never in the extension host's thread.
import * as vscode from 'vscode';
import { analyze } from '../core/analyze';
import type { Analysis, TokenCache, Transcript, TurnId } from '../core/model';
import { TokenPool } from '../node/tokenPool';
import { TranscriptFile, UnusableTranscriptError } from '../node/transcriptFile';
import { warmTokenCache } from '../node/warmTokenCache';
import { decompressedUri, transcriptUriOf } from './decompressedDocument';
import type { Log } from './log';
import { LIMIT_SETTING_NAMES, readSettings, type Settings } from './settings';
import { isAbort, reportFailure } from './userErrors';

/** How long a burst of file changes is collapsed before the transcript is re-read. */
export const REFRESH_DEBOUNCE_MS = 250;
/**
 * How often transcripts someone is looking at (open in an editor or a timeline) are checked for growth.
 * File watchers miss files outside the workspace (agents write to ~/.claude, ~/.codex); a stat per second
 * per watched file is the fallback. A check that finds the size unchanged costs one stat call.
 */
export const POLL_INTERVAL_MS = 1000;

/** A transcript file with its current snapshot and the analysis of that snapshot. */
export class AnalysedTranscript {
  /** Bumped on every re-analysis. */
  version = 1;
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
  ) {
    this.documentUri = file.compressed ? decompressedUri(uri) : uri;
  }

  get name(): string {
    return this.uri.path.slice(this.uri.path.lastIndexOf('/') + 1);
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

interface LoadOptions {
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

export class TranscriptStore implements vscode.Disposable {
  private readonly entries = new Map<string, AnalysedTranscript>();
  private readonly loading = new Map<string, Promise<AnalysedTranscript>>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly refreshing = new Map<string, Promise<void>>();
  private readonly changed = new vscode.EventEmitter<AnalysedTranscript>();
  private readonly removed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [this.changed, this.removed];
  private readonly holders = new Map<string, number>();
  private readonly lastRefreshError = new Map<string, string>();
  private poller?: ReturnType<typeof setInterval>;
  private settings: Settings;
  /** Counts tokens in worker threads; ended with the store (on deactivation). */
  readonly tokenPool: TokenPool;

  /** Fires after a transcript was analysed for the first time or re-analysed. */
  readonly onDidChange = this.changed.event;
  /** Fires when a transcript was dropped (deleted, or no longer readable). */
  readonly onDidRemove = this.removed.event;

  constructor(private readonly log: Log) {
    this.settings = this.readSettings();
    this.tokenPool = new TokenPool({
      onFallback: (reason) => log.warn(`${reason}; counting tokens in the extension host's thread instead`),
    });
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0 && this.entries.has(event.document.uri.toString())) {
          this.scheduleRefresh(event.document.uri);
        }
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('compactionLens')) void this.settingsChanged(event);
      }),
    );
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

  /** The analysed transcript of `uri`, reading and analysing it first when needed. Throws on failure. */
  load(uri: vscode.Uri, options: LoadOptions = {}): Promise<AnalysedTranscript> {
    const key = uri.toString();
    const existing = this.entries.get(key);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.loadNow(uri, options).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /**
   * `load` with a progress notification (cancellable) when `interactive`, or the status-bar spinner
   * otherwise. Failures are shown to the user when interactive, logged otherwise; returns undefined then.
   */
  async open(uri: vscode.Uri, interactive: boolean): Promise<AnalysedTranscript | undefined> {
    const existing = this.get(uri);
    if (existing) return existing;
    const name = uri.path.slice(uri.path.lastIndexOf('/') + 1);
    try {
      return await vscode.window.withProgress(
        {
          location: interactive ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window,
          title: `Compaction Lens: ${name}`,
          cancellable: interactive,
        },
        async (progress, token) => {
          const abort = new AbortController();
          const subscription = token.onCancellationRequested(() => abort.abort());
          let reported = 0;
          try {
            return await this.load(uri, {
              signal: abort.signal,
              onProgress: (fraction, message) => {
                const increment = Math.max(0, fraction * 100 - reported);
                reported += increment;
                progress.report({ message, increment });
              },
            });
          } finally {
            subscription.dispose();
          }
        },
      );
    } catch (error) {
      if (isAbort(error)) return undefined;
      if (interactive) reportFailure(this.log, uri.fsPath, error);
      else this.log.info(`not analysed: ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** Re-reads the file after a change, debounced; the analysis is updated only when the file changed. */
  scheduleRefresh(uri: vscode.Uri): void {
    const key = uri.toString();
    if (!this.entries.has(key)) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.refresh(uri);
      }, REFRESH_DEBOUNCE_MS),
    );
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

  /** Keeps `uri` live (checked for growth every POLL_INTERVAL_MS) until the returned disposable is disposed. */
  hold(uri: vscode.Uri): vscode.Disposable {
    const key = uri.toString();
    this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
    this.startPolling();
    let released = false;
    return new vscode.Disposable(() => {
      if (released) return;
      released = true;
      const count = (this.holders.get(key) ?? 1) - 1;
      if (count > 0) this.holders.set(key, count);
      else this.holders.delete(key);
    });
  }

  /** Forgets a transcript (its diagnostics, tree items and panels follow through onDidRemove). */
  remove(uri: vscode.Uri): void {
    const key = uri.toString();
    if (!this.entries.delete(key)) return;
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.watchers.get(key)?.dispose();
    this.watchers.delete(key);
    this.removed.fire(uri);
  }

  /** The settings, each rejected value (wrong type, out of range) warned about in one line of the log. */
  private readSettings(): Settings {
    return readSettings((message) => this.log.warn(message));
  }

  dispose(): void {
    this.tokenPool.dispose();
    clearInterval(this.poller);
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const watcher of this.watchers.values()) watcher.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }

  private async loadNow(uri: vscode.Uri, options: LoadOptions): Promise<AnalysedTranscript> {
    if (uri.scheme !== 'file') {
      throw new UnusableTranscriptError(
        `${uri.toString()} is not a file on disk; Compaction Lens reads transcripts from the local file system.`,
        uri.toString(),
      );
    }
    const settings = this.settings;
    const file = await TranscriptFile.open(uri.fsPath, {
      defaultBudgets: settings.defaultSummaryBudget,
      // compactionLens.maxDecompressedMegabytes (in bytes) and compactionLens.maxDecompressionRatio.
      maxInflatedBytes: settings.maxInflatedBytes,
      maxInflateRatio: settings.maxInflateRatio,
      limitNames: LIMIT_SETTING_NAMES,
      signal: options.signal,
      onProgress: (read, total) => options.onProgress?.(total > 0 ? (0.4 * read) / total : 0, 'reading…'),
    });
    options.onProgress?.(0.4, 'counting tokens…');
    const tokenCache: TokenCache = new Map();
    const transcript = file.transcript;
    const analysis = await this.analyse(transcript, tokenCache, {
      signal: options.signal,
      onProgress: (fraction) => options.onProgress?.(0.4 + 0.5 * fraction, `counting tokens… ${Math.floor(fraction * 100)}%`),
    });
    options.onProgress?.(1, 'done');
    const key = uri.toString();
    const entry = new AnalysedTranscript(uri, file, transcript, analysis, tokenCache);
    this.entries.set(key, entry);
    this.watch(uri);
    this.startPolling();
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
        // Logged once per distinct error: the poller retries every second.
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

  private startPolling(): void {
    if (this.poller) return;
    this.poller = setInterval(() => this.poll(), POLL_INTERVAL_MS);
  }

  /** Refreshes the transcripts that are open in an editor or held by a timeline (unchanged ones cost a stat). */
  private poll(): void {
    const open = new Set(vscode.workspace.textDocuments.map((document) => transcriptUriOf(document.uri)?.toString()));
    for (const [key, entry] of this.entries) {
      if ((open.has(key) || this.holders.has(key)) && !this.refreshing.has(key) && !this.timers.has(key)) {
        void this.refresh(entry.uri);
      }
    }
  }

  /**
   * Re-analyses the entry's current snapshot. Returns false, changing nothing, when the entry was dropped or
   * got a newer snapshot or token cache while its tokens were being counted (that newer one is analysed too).
   */
  private async reanalyse(entry: AnalysedTranscript): Promise<boolean> {
    const transcript = entry.file.transcript;
    const tokenCache = entry.tokenCache;
    const analysis = await this.analyse(transcript, tokenCache);
    if (this.entries.get(entry.uri.toString()) !== entry || entry.file.transcript !== transcript || entry.tokenCache !== tokenCache) {
      return false;
    }
    entry.update(transcript, analysis);
    this.changed.fire(entry);
    return true;
  }

  /**
   * Counts, in the token pool's workers, what the analysis will count (into `tokenCache`), then analyses
   * synchronously — without tokenizing — with the settings of that moment. `onProgress` gets 0..1.
   */
  private async analyse(
    transcript: Transcript,
    tokenCache: TokenCache,
    options: { signal?: AbortSignal; onProgress?: (fraction: number) => void } = {},
  ): Promise<Analysis> {
    const countTokens = await warmTokenCache(
      transcript,
      tokenCache,
      this.tokenPool,
      this.settings.encoding,
      options.onProgress && ((done, total) => options.onProgress?.(total > 0 ? done / total : 1)),
      options.signal,
    );
    const settings = this.settings;
    return analyze(transcript, {
      countTokens,
      ratioFloor: settings.ratioFloor,
      coverageThreshold: settings.coverageThreshold,
      tokenCache,
    });
  }

  private watch(uri: vscode.Uri): void {
    const key = uri.toString();
    if (this.watchers.has(key)) return;
    const folder = vscode.Uri.joinPath(uri, '..');
    const name = uri.path.slice(uri.path.lastIndexOf('/') + 1);
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, name));
    watcher.onDidChange(() => this.scheduleRefresh(uri));
    watcher.onDidCreate(() => this.scheduleRefresh(uri));
    watcher.onDidDelete(() => this.scheduleRefresh(uri));
    this.watchers.set(key, watcher);
  }

  private async settingsChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
    const previous = this.settings;
    this.settings = this.readSettings();
    // Assumed budgets are applied by the reader, and the decompression limits decide what it reads at all.
    const rereadFiles =
      event.affectsConfiguration('compactionLens.defaultSummaryBudget') ||
      previous.maxInflatedBytes !== this.settings.maxInflatedBytes ||
      previous.maxInflateRatio !== this.settings.maxInflateRatio;
    const newTokens = previous.encoding !== this.settings.encoding;
    const reanalyse =
      newTokens ||
      previous.ratioFloor !== this.settings.ratioFloor ||
      previous.coverageThreshold !== this.settings.coverageThreshold;
    if (rereadFiles) {
      // Open each file again.
      const uris = this.all().map((entry) => entry.uri);
      for (const uri of uris) {
        this.entries.delete(uri.toString());
        this.watchers.get(uri.toString())?.dispose();
        this.watchers.delete(uri.toString());
      }
      for (const uri of uris) {
        const entry = await this.open(uri, false);
        if (!entry) this.removed.fire(uri);
      }
      return;
    }
    if (!reanalyse) return;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Compaction Lens: re-analysing' },
      async () => {
        const entries = this.all();
        // Every cache at once: a refresh meanwhile must not analyse with counts of the old encoding.
        if (newTokens) for (const entry of entries) entry.tokenCache = new Map();
        for (const entry of entries) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          try {
            await this.reanalyse(entry);
          } catch (error) {
            if (!this.tokenPool.disposed) this.log.error(`re-analysing ${entry.uri.fsPath}`, error);
          }
        }
      },
    );
  }
}

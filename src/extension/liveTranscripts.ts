// Keeps analysed transcripts live while an agent is still writing them: a file watcher per transcript, a debounce
// that collapses a burst of changes into one re-read, a poll for the transcripts someone is looking at (file
// watchers miss files outside the workspace, where agents write: ~/.claude, ~/.codex), edits of an open document (a
// save reads the file whole: the edit may be anywhere), and changes of the settings (re-read or re-analyse
// everything, with a spinner in the status bar). A transcript the store demoted to its digest is neither watched
// nor polled (it is read afresh when it is loaded again); one opened in an editor tab again is loaded again, but
// not one another extension opens as a document without a tab (the git extension does, for its diffs), which would
// pin full transcripts nobody looks at. The re-reading itself is the store's (transcriptStore.ts).
import * as vscode from 'vscode';
import { fileNameOf } from '../core/displayText';
import { transcriptUriOf } from './decompressedDocument';
import { Disposable } from './dispose';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import { readSettings } from './settings';
import type { TranscriptStore } from './transcriptStore';

/** How long a burst of file changes is collapsed before the transcript is re-read. */
export const REFRESH_DEBOUNCE_MS = 250;
/**
 * How often transcripts someone is looking at (open in an editor or a timeline) are checked for growth: a
 * check that finds the size unchanged costs one stat call.
 */
export const POLL_INTERVAL_MS = 1000;

export class LiveTranscripts extends Disposable {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** The files whose next re-read, when its timer fires, reads them whole (one was saved from an editor). */
  private readonly anew = new Set<string>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly holders = new Map<string, number>();
  private poller?: ReturnType<typeof setInterval>;

  constructor(
    private readonly store: TranscriptStore,
    private readonly log: Log,
  ) {
    super();
    this.register(
      store.onDidChange((entry) => {
        this.watch(entry.uri);
        this.startPolling();
      }),
    );
    this.register(store.onDidRemove((uri) => this.forget(uri)));
    this.register(store.onDidDemote((uri) => this.forget(uri)));
    // A demoted transcript opened in an editor tab again (a text editor, a decompressed view, a .gz tab).
    this.register(
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        for (const tab of event.opened) {
          const input: unknown = tab.input;
          const uri = input && typeof input === 'object' && 'uri' in input ? input.uri : undefined;
          if (uri instanceof vscode.Uri) this.loadIfDemoted(uri);
        }
      }),
    );
    this.register(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0 && store.get(event.document.uri)) this.scheduleRefresh(event.document.uri);
      }),
    );
    // A save from an editor may have changed any line, where a refresh would see only growth or a changed end.
    this.register(
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (store.get(document.uri)) this.scheduleRefresh(document.uri, true);
      }),
    );
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('compactionLens')) void this.settingsChanged();
      }),
    );
    this.register({
      dispose: () => {
        clearInterval(this.poller);
        for (const timer of this.timers.values()) clearTimeout(timer);
        for (const watcher of this.watchers.values()) watcher.dispose();
      },
    });
  }

  /**
   * Re-reads the file after a change, debounced (whole when `anew`, or when a change collapsed into this one asked
   * for it); the analysis is updated only when the file changed.
   */
  scheduleRefresh(uri: vscode.Uri, anew = false): void {
    const key = uri.toString();
    if (!this.store.get(uri)) return;
    if (anew) this.anew.add(key);
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        const whole = this.anew.delete(key);
        void this.store.refresh(uri, whole);
      }, REFRESH_DEBOUNCE_MS),
    );
  }

  /**
   * Keeps `uri` live (checked for growth every POLL_INTERVAL_MS) and its full entry in the store until the
   * returned disposable is disposed.
   */
  hold(uri: vscode.Uri): vscode.Disposable {
    const key = uri.toString();
    this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
    const stored = this.store.hold(uri);
    this.startPolling();
    let released = false;
    return new vscode.Disposable(() => {
      if (released) return;
      released = true;
      const count = (this.holders.get(key) ?? 1) - 1;
      if (count > 0) this.holders.set(key, count);
      else this.holders.delete(key);
      stored.dispose();
    });
  }

  /** Loads the transcript behind a document or tab again when the store demoted it (with the status bar's spinner). */
  private loadIfDemoted(uri: vscode.Uri): void {
    const file = transcriptUriOf(uri);
    if (file && this.store.isDemoted(file)) void openTranscript(this.store, this.log, file, { interactive: false });
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.anew.delete(key);
    this.watchers.get(key)?.dispose();
    this.watchers.delete(key);
  }

  private watch(uri: vscode.Uri): void {
    const key = uri.toString();
    if (this.watchers.has(key) || this.isDisposed) return;
    const folder = vscode.Uri.joinPath(uri, '..');
    const name = fileNameOf(uri.path);
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, name));
    watcher.onDidChange(() => this.scheduleRefresh(uri));
    watcher.onDidCreate(() => this.scheduleRefresh(uri));
    watcher.onDidDelete(() => this.scheduleRefresh(uri));
    this.watchers.set(key, watcher);
  }

  private startPolling(): void {
    if (this.poller || this.isDisposed) return;
    this.poller = setInterval(() => this.poll(), POLL_INTERVAL_MS);
  }

  /** Refreshes the transcripts that are open in an editor or held by a timeline (unchanged ones cost a stat). */
  private poll(): void {
    const open = new Set(vscode.workspace.textDocuments.map((document) => transcriptUriOf(document.uri)?.toString()));
    for (const entry of this.store.all()) {
      const key = entry.uri.toString();
      if ((open.has(key) || this.holders.has(key)) && !this.store.isRefreshing(entry.uri) && !this.timers.has(key)) {
        void this.store.refresh(entry.uri);
      }
    }
  }

  private async settingsChanged(): Promise<void> {
    const change = this.store.updateSettings(readSettings((message) => this.log.warn(message)));
    if (!change.reread && !change.reanalyse) return;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Window,
        title: change.reread ? 'Compaction Lens: reading transcripts again' : 'Compaction Lens: re-analysing',
      },
      () => this.store.applySettings(change),
    );
  }
}

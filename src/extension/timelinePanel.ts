// The compaction timeline: one webview panel per transcript, or one in all that follows the active transcript
// (`compactionLens.timeline.reuse`). Serves the protocol (ready -> init, paged rows, turn and summary details),
// validates every message from the webview, opens turns beside the panel as preview editors without taking the
// focus, keeps the webview live when the transcript grows, and restores panels after a reload from view state only.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { fileNameOf } from '../core/displayText';
import type { Turn } from '../core/model';
import type { CheckpointHeader, HostMessage, ViewState } from '../protocol';
import { revealLines, revealTurn, type RevealOptions } from './editorReveal';
import { Disposable } from './dispose';
import type { LiveTranscripts } from './liveTranscripts';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import { readSettings } from './settings';
import { validateViewState, validateWebviewMessage, viewStateShape } from '../view/messageValidation';
import { answerRequest, boundsOf } from '../view/requests';
import { safePointerSet } from '../core/correctedCheckpoint';
import { checkpointHeaders, fileInfo, firstRows, tailRows } from '../view/timelineData';
import { SelectionHandoff } from '../view/selectionHandoff';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';
import { renderWebviewHtml } from '../view/webviewHtml';

export const TIMELINE_VIEW_TYPE = 'compactionLens.timeline';
/** Context key: true while a timeline panel is the active editor. */
const TIMELINE_ACTIVE_KEY = 'compactionLens.timelineActive';

export type MessageOutcome = 'handled' | 'ignored';

interface PanelServices {
  extensionUri: vscode.Uri;
  store: TranscriptStore;
  /** Keeps the transcript of an open timeline live. */
  live: LiveTranscripts;
  log: Log;
}

export class TimelinePanel extends Disposable {
  private ready = false;
  private viewState?: ViewState;
  /** Turn selections asked of the webview, kept until it shows them (it can be torn down at any moment). */
  private readonly selection = new SelectionHandoff();
  /** The analysis version the webview was last sent (init / updated); requests asked against another are stale. */
  private version = 0;
  /** The checkpoint headers the webview document has (from its init / updated), to leave out when they are the same. */
  private sentHeaders?: CheckpointHeader[];
  /** The turns the webview's rows were last described from (init or updated), to tell which rows an append changed. */
  private sentTurns?: readonly Turn[];
  private readonly disposed = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  /** The transcript shown; changes only through `retarget` (the single panel of `timeline.reuse: single`). */
  private target: vscode.Uri;
  /** Keeps the shown transcript live. */
  private holding: vscode.Disposable;

  constructor(
    readonly panel: vscode.WebviewPanel,
    uri: vscode.Uri,
    private readonly services: PanelServices,
    restore?: ViewState,
  ) {
    super();
    this.target = uri;
    this.viewState = restore;
    this.render();
    this.holding = services.live.hold(uri);
    this.register(panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this.register(
      panel.onDidChangeViewState(() => {
        if (panel.visible) return;
        this.ready = false; // the webview is torn down; it sends `ready` again when shown
        this.selection.hidden();
      }),
    );
    this.register(
      services.store.onDidChange((entry) => {
        if (entry.uri.toString() === this.uri.toString()) this.postUpdate(entry);
      }),
    );
    this.register(
      services.store.onDidRemove((removed) => {
        if (removed.toString() === this.uri.toString()) {
          this.post({ type: 'error', message: `${this.name} was deleted or is no longer a readable transcript.` });
        }
      }),
    );
    this.register(panel.onDidDispose(() => this.dispose()));
  }

  /** The transcript this panel shows. */
  get uri(): vscode.Uri {
    return this.target;
  }

  get name(): string {
    return fileNameOf(this.uri.path);
  }

  /**
   * Shows another transcript in this panel (the single panel that follows the active transcript): a fresh
   * webview document, whose `ready` gets the new transcript's init; nothing of the previous one is kept.
   */
  retarget(entry: AnalysedTranscript, restore?: ViewState): void {
    if (entry.uri.toString() === this.uri.toString() || this.isDisposed) return;
    this.holding.dispose();
    this.target = entry.uri;
    this.holding = this.services.live.hold(entry.uri);
    this.viewState = restore;
    this.selection.clear();
    this.ready = false;
    this.version++; // answers to the previous document's requests are stale
    this.panel.title = `Timeline: ${entry.name}`;
    this.render();
  }

  /** The last view state the webview reported (or the one it was restored with). */
  get currentViewState(): ViewState | undefined {
    return this.viewState;
  }

  /** True once the webview has sent `ready` and has not been hidden since. */
  get isReady(): boolean {
    return this.ready;
  }

  /** Asks the webview to select a turn (queued until the webview is ready). */
  selectTurn(checkpointIndex: number, turnIndex: number): void {
    const turnCount = this.services.store.get(this.uri)?.transcript.turns.length ?? 0;
    const now = this.selection.request({ checkpointIndex, turnIndex }, this.ready, turnCount);
    if (now) this.post({ type: 'selectTurn', ...now });
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  /**
   * Handles one message from the webview. Every request (getRows, getTurnDetails, getSummary) is answered:
   * with its reply, or with an error carrying its id when it is invalid, stale or fails (src/view/requests.ts).
   * Other invalid or unknown messages are ignored and logged. Resolves once the message was acted on;
   * 'ignored' when it was not (an invalid request still got its error reply).
   */
  async receive(raw: unknown): Promise<MessageOutcome> {
    const entry = this.services.store.get(this.uri);
    const bounds = boundsOf(entry);
    const answer = answerRequest(raw, entry, { file: this.uri.fsPath, version: this.version });
    if (answer) {
      this.post(answer);
      if (answer.type !== 'error') return 'handled';
      this.services.log.warn(`timeline ${this.name}: answered a request with an error: ${answer.message}`);
      return answer.reason === 'failed' ? 'handled' : 'ignored';
    }
    const validation = validateWebviewMessage(raw, this.uri.fsPath, bounds);
    if (!validation.ok) {
      this.services.log.warn(`timeline ${this.name}: ignored a message from the webview: ${validation.reason}`);
      return 'ignored';
    }
    const message = validation.message;
    if (!entry) {
      this.services.log.warn(`timeline ${this.name}: ignored ${message.type}: the transcript is not analysed`);
      return 'ignored';
    }
    try {
      switch (message.type) {
        case 'ready': {
          this.ready = true;
          this.sentHeaders = checkpointHeaders(entry.transcript, entry.analysis);
          this.sentTurns = entry.transcript.turns;
          const restore = this.viewState ? validateViewState(this.viewState, this.uri.fsPath, bounds) : undefined;
          // The rows the timeline opens on (in the view it restores, if any) come along, so it draws them without asking.
          const rows = firstRows(entry.transcript, entry.analysis, this.sentHeaders, restore);
          this.post({
            type: 'init',
            file: fileInfo(this.uri.fsPath, entry.transcript),
            checkpoints: this.sentHeaders,
            problems: entry.analysis.problems,
            restore,
            version: this.version,
            ...(rows ? { rows } : {}),
          });
          const queued = this.selection.ready();
          if (queued) this.post({ type: 'selectTurn', ...queued });
          break;
        }
        case 'openTurn':
          await revealTurn(entry, message.turnIndex, this.besideOptions);
          break;
        case 'openCheckpoint': {
          const checkpoint = entry.analysis.checkpoints[message.checkpointIndex];
          await revealLines(entry.documentUri, checkpoint.line, checkpoint.endLine, this.besideOptions);
          break;
        }
        case 'copySafePointerSet':
          await copySafePointerSet(entry, message.checkpointIndex);
          break;
        case 'viewState':
          this.viewState = message.state;
          this.selection.reported(message.state.selectedTurn);
          break;
        default:
          // Requests were answered above; nothing else reaches here.
          break;
      }
      return 'handled';
    } catch (error) {
      this.services.log.error(`timeline ${this.name}: ${message.type}`, error);
      this.post({ type: 'error', message: `Could not ${message.type}: ${(error as Error).message}` });
      return 'handled';
    }
  }

  override dispose(): void {
    if (this.isDisposed) return;
    super.dispose();
    this.holding.dispose();
    this.panel.dispose();
    this.disposed.fire();
    this.disposed.dispose();
  }

  /** (Re)loads the webview document; it sends `ready` once its script runs. */
  private render(): void {
    const { panel } = this;
    const dist = vscode.Uri.joinPath(this.services.extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = renderWebviewHtml({
      cspSource: panel.webview.cspSource,
      nonce: randomBytes(16).toString('hex'),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
      title: `Compaction timeline: ${this.name}`,
    });
  }

  /**
   * How a turn or checkpoint opens from the timeline: in the editor group beside this panel, as a preview editor,
   * and without taking the keyboard focus, so the timeline's arrow keys keep moving its selection.
   */
  private get besideOptions(): RevealOptions {
    return { beside: this.panel.viewColumn ?? true, preserveFocus: true, preview: true };
  }

  /**
   * Tells the webview the transcript was re-analysed. Headers are kept per checkpoint analysis (timelineData), so
   * after an append that changed no checkpoint they are the very objects the webview has: then they are left out
   * (`sameCheckpoints`), and a 100k-turn file's claimed-missing turns are not sent again for one new turn.
   */
  private postUpdate(entry: AnalysedTranscript): void {
    this.version++; // requests asked against the previous analysis are stale from now on
    if (!this.ready) return; // the next `ready` gets a fresh init
    const headers = checkpointHeaders(entry.transcript, entry.analysis);
    const sent = this.sentHeaders;
    const same = sent !== undefined && sent.length === headers.length && headers.every((header, index) => header === sent[index]);
    this.sentHeaders = headers;
    // The rows the append changed ride along, so the webview draws them without asking (one round trip less).
    const tail = same && this.sentTurns ? tailRows(this.sentTurns, entry.transcript, entry.analysis) : undefined;
    // New checkpoints: every row may have changed; those of the view last reported ride along, as with init.
    const view = this.viewState ? validateViewState(this.viewState, this.uri.fsPath, boundsOf(entry)) : undefined;
    const rows = same ? undefined : firstRows(entry.transcript, entry.analysis, headers, view);
    this.sentTurns = entry.transcript.turns;
    this.post({
      type: 'updated',
      version: this.version,
      file: fileInfo(this.uri.fsPath, entry.transcript),
      checkpoints: same ? [] : headers,
      problems: entry.analysis.problems,
      ...(same ? { sameCheckpoints: true } : {}),
      ...(tail ? { tail } : {}),
      ...(rows ? { rows } : {}),
    });
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }
}

/** Copies a checkpoint's safe pointer set to the clipboard as JSON and says so. */
export async function copySafePointerSet(entry: AnalysedTranscript, checkpointIndex: number): Promise<void> {
  const checkpoint = entry.analysis.checkpoints[checkpointIndex];
  const set = safePointerSet(checkpoint);
  await vscode.env.clipboard.writeText(JSON.stringify(set, null, 2));
  void vscode.window.showInformationMessage(
    `Copied the safe pointer set of ${checkpoint.summaryId}: ${set.covered.length} covered, ` +
      `${set.uncovered.length} routed to the raw log.`,
  );
}

/**
 * All open timeline panels and their serializer. One panel per transcript: opening a transcript's timeline again
 * reveals its panel. With `compactionLens.timeline.reuse: "single"` there is one panel, which follows the active
 * transcript (as GitLens's views follow the active file).
 */
export class TimelinePanels extends Disposable implements vscode.WebviewPanelSerializer {
  /** Open panels, most recently active last. */
  private readonly panels: TimelinePanel[] = [];

  constructor(private readonly services: PanelServices) {
    super();
    this.register(vscode.window.registerWebviewPanelSerializer(TIMELINE_VIEW_TYPE, this));
  }

  get(uri: vscode.Uri): TimelinePanel | undefined {
    return this.panels.find((timeline) => timeline.uri.toString() === uri.toString());
  }

  /** Every open timeline panel. */
  get all(): readonly TimelinePanel[] {
    return [...this.panels];
  }

  /** The timeline panel that is the active editor, if any. */
  active(): TimelinePanel | undefined {
    return this.panels.find((panel) => panel.panel.active);
  }

  /**
   * Shows the timeline of `entry`, optionally selecting a turn: reveals its open panel; else, in single mode,
   * switches the open panel to it; else opens a panel in the active editor group.
   */
  show(entry: AnalysedTranscript, selection?: { checkpointIndex: number; turnIndex: number }): TimelinePanel {
    let timeline = this.get(entry.uri);
    const single = readSettings().timelineReuse === 'single' ? this.panels.at(-1) : undefined;
    if (!timeline && single) {
      single.retarget(entry);
      timeline = single;
    }
    if (timeline) {
      timeline.reveal();
    } else {
      const panel = vscode.window.createWebviewPanel(
        TIMELINE_VIEW_TYPE,
        `Timeline: ${entry.name}`,
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        { enableScripts: true, retainContextWhenHidden: false, localResourceRoots: [this.dist] },
      );
      timeline = this.adopt(panel, entry.uri);
    }
    if (selection) timeline.selectTurn(selection.checkpointIndex, selection.turnIndex);
    return timeline;
  }

  /**
   * In single mode, switches the open panel to each analysed transcript that becomes the active editor's
   * (without revealing or focusing it). A timeline taking the focus is no change: it has no text editor.
   */
  followActive(onDidChangeActive: vscode.Event<AnalysedTranscript | undefined>): void {
    this.register(
      onDidChangeActive((entry) => {
        const single = this.panels.at(-1);
        if (!entry || !single || readSettings().timelineReuse !== 'single' || this.get(entry.uri)) return;
        single.retarget(entry);
      }),
    );
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const viewState = viewStateShape(state);
    if (!viewState) {
      this.services.log.warn('a timeline panel could not be restored: it had no view state');
      panel.dispose();
      return;
    }
    const uri = vscode.Uri.file(viewState.file);
    if (this.get(uri) || (readSettings().timelineReuse === 'single' && this.panels.length > 0)) {
      panel.dispose(); // already open in another panel, or the single panel is
      return;
    }
    const entry = await openTranscript(this.services.store, this.services.log, uri, { interactive: false });
    if (!entry) {
      panel.dispose();
      void vscode.window.showWarningMessage(
        `Compaction Lens could not restore the timeline of ${viewState.file}: the file is missing or no longer a transcript.`,
      );
      return;
    }
    panel.title = `Timeline: ${entry.name}`;
    this.adopt(panel, uri, viewState);
  }

  override dispose(): void {
    for (const panel of [...this.panels]) panel.dispose();
    super.dispose();
  }

  private get dist(): vscode.Uri {
    return vscode.Uri.joinPath(this.services.extensionUri, 'dist');
  }

  private adopt(panel: vscode.WebviewPanel, uri: vscode.Uri, restore?: ViewState): TimelinePanel {
    const timeline = new TimelinePanel(panel, uri, this.services, restore);
    this.panels.push(timeline);
    const updateContext = () => void vscode.commands.executeCommand('setContext', TIMELINE_ACTIVE_KEY, this.active() !== undefined);
    const viewStateSubscription = panel.onDidChangeViewState(() => {
      if (panel.active) {
        // Most recently active last: the one single mode reuses.
        this.panels.splice(this.panels.indexOf(timeline), 1);
        this.panels.push(timeline);
      }
      updateContext();
    });
    timeline.onDidDispose(() => {
      viewStateSubscription.dispose();
      const at = this.panels.indexOf(timeline);
      if (at >= 0) this.panels.splice(at, 1);
      updateContext();
    });
    updateContext();
    return timeline;
  }
}

// Tracks which analysed transcript the active editor shows — a text editor on the file or on a .jsonl.gz's
// decompressed view, or, when no text editor is active, the active tab's file (a .jsonl.gz opens in VS Code's
// binary placeholder, not a text editor): sets the `compactionLens.activeIsTranscript`
// context key (menus, command enablement), tells listeners (the status bar), and — when the
// `analyzeOnOpen` setting is on — analyses transcripts matching `transcriptGlobs` as they become visible
// after activation (a text editor, or the tab of a .jsonl.gz).
import * as vscode from 'vscode';
import { transcriptUriOf } from './decompressedDocument';
import { Disposable } from './dispose';
import { matchesGlobs } from './globMatch';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import { readSettings, splitGlobs } from './settings';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';

const ACTIVE_KEY = 'compactionLens.activeIsTranscript';

/**
 * The file the active editor shows: the active text editor's document (the .gz behind a decompressed view), or,
 * when no text editor is active, the resource of the active tab (a binary or custom editor), if it has one.
 */
export function activeEditorUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor) return transcriptUriOf(editor.document.uri);
  const input: unknown = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  // TabInputText, TabInputCustom, TabInputNotebook: each has the resource as `uri`.
  const uri = input && typeof input === 'object' && 'uri' in input ? input.uri : undefined;
  return uri instanceof vscode.Uri ? uri : undefined;
}

/** True when `document` matches the include globs and none of the `!` excludes. */
export function matchesTranscriptGlobs(document: vscode.TextDocument, globs: string[]): boolean {
  if (document.uri.scheme !== 'file') return false;
  const { include, exclude } = splitGlobs(globs);
  const matches = (pattern: string) => vscode.languages.match({ scheme: 'file', pattern }, document) > 0;
  return include.some(matches) && !exclude.some(matches);
}

export class ActiveTranscript extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<AnalysedTranscript | undefined>());
  private readonly attempted = new Set<string>();
  /** Fires when the active editor's transcript (or its analysis) changes. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly store: TranscriptStore,
    private readonly log: Log,
  ) {
    super();
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.register(
      vscode.window.tabGroups.onDidChangeTabs(() => {
        this.update();
        this.analyseActiveTab();
      }),
    );
    this.register(vscode.window.tabGroups.onDidChangeTabGroups(() => this.update()));
    this.register(vscode.window.onDidChangeVisibleTextEditors((editors) => this.analyseVisible(editors)));
    this.register(
      store.onDidChange((entry) => {
        if (entry.uri.toString() === this.activeUri()?.toString()) this.update();
      }),
    );
    this.register(
      store.onDidRemove((uri) => {
        this.attempted.delete(uri.toString());
        if (uri.toString() === this.activeUri()?.toString()) this.update();
      }),
    );
    // Editors already visible at activation are not analysed: activation does no work.
    this.update();
  }

  /** The analysed transcript in the active editor, if any. */
  get current(): AnalysedTranscript | undefined {
    const uri = this.activeUri();
    return uri ? this.store.get(uri) : undefined;
  }

  private activeUri(): vscode.Uri | undefined {
    return activeEditorUri();
  }

  private update(): void {
    const current = this.current;
    void vscode.commands.executeCommand('setContext', ACTIVE_KEY, current !== undefined);
    this.changed.fire(current);
  }

  private analyseVisible(editors: readonly vscode.TextEditor[]): void {
    const settings = readSettings();
    if (!settings.analyzeOnOpen) return;
    for (const editor of editors) {
      const document = editor.document;
      if (matchesTranscriptGlobs(document, settings.transcriptGlobs)) this.analyseOnce(document.uri);
    }
  }

  /** A .jsonl.gz opens in VS Code's binary placeholder, not a text editor: its tab is analysed as a document would be. */
  private analyseActiveTab(): void {
    const settings = readSettings();
    if (!settings.analyzeOnOpen || vscode.window.activeTextEditor) return;
    const uri = activeEditorUri();
    if (uri?.scheme !== 'file' || !uri.path.endsWith('.gz')) return;
    const { include, exclude } = splitGlobs(settings.transcriptGlobs);
    if (matchesGlobs(uri.fsPath, include, exclude)) this.analyseOnce(uri);
  }

  /** One try per file: a .json that is no transcript is not read again and again. */
  private analyseOnce(uri: vscode.Uri): void {
    const key = uri.toString();
    if (this.attempted.has(key) || this.store.get(uri)) return;
    this.attempted.add(key);
    void openTranscript(this.store, this.log, uri, { interactive: false });
  }
}

// End-of-line marks on claimed-missing turns, as Error Lens shows problems: on the first line of each
// claimed-missing turn, "claimed, but missing from the summary (checkpoint at line 421)", in the theme colour
// `compactionLens.claimedMissingForeground`. Off by default (setting `compactionLens.inlineMarks`). One decoration
// type, created once; applied to the visible editors only, again when they change, when an analysis changes and
// when the settings do. The marks are plain text built from line numbers (src/view/problemsModel.ts): transcript
// text never goes into them. Kinds whose problem severity is `off` are not marked.
import * as vscode from 'vscode';
import { Disposable } from './dispose';
import type { CheckpointAnalysis } from '../core/model';
import { missingTurnMarks, type KindSeverities } from '../view/problemsModel';
import { readSettings, SECTION } from './settings';
import type { TranscriptStore } from './transcriptStore';

/** Settings whose change re-applies the marks. */
const MARK_SETTINGS = [`${SECTION}.inlineMarks`, `${SECTION}.problems.conversationSeverity`, `${SECTION}.problems.toolOutputSeverity`];

export class MissingTurnMarks extends Disposable {
  private readonly decoration = this.register(
    vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      after: {
        color: new vscode.ThemeColor('compactionLens.claimedMissingForeground'),
        fontStyle: 'italic',
        margin: '0 0 0 3em',
      },
    }),
  );
  /** The 0-based lines marked in each decorated editor's document, by the document's URI (for tests and logs). */
  private readonly applied = new Map<string, number[]>();
  /**
   * What each decorated editor's marks were made from. A re-analysis after an append gives back the same
   * CheckpointAnalysis objects for the checkpoints it cannot change: their marks are already on the editor and
   * are not made again (a walk over every claimed turn, a decoration per claimed-missing turn).
   */
  private readonly decorated = new WeakMap<vscode.TextEditor, DecoratedFrom>();

  constructor(private readonly store: TranscriptStore) {
    super();
    this.register(vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()));
    this.register(store.onDidChange(() => this.refresh()));
    this.register(store.onDidRemove(() => this.refresh()));
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (MARK_SETTINGS.some((name) => event.affectsConfiguration(name))) this.refresh();
      }),
    );
    this.register({ dispose: () => this.applied.clear() });
    this.refresh();
  }

  /** The 0-based lines marked now, per document URI, in the visible editors only. */
  marked(): ReadonlyMap<string, readonly number[]> {
    return this.applied;
  }

  /** Re-applies the marks to every visible editor (none when the setting is off). */
  refresh(): void {
    const settings = readSettings();
    const next = new Map<string, number[]>();
    for (const editor of vscode.window.visibleTextEditors) {
      const key = editor.document.uri.toString();
      const entry = settings.inlineMarks ? this.store.forDocument(editor.document.uri) : undefined;
      // Only the document the records are shown in: a .jsonl.gz's decompressed view, never its binary placeholder.
      if (!entry || entry.documentUri.toString() !== key) {
        if (this.applied.has(key)) editor.setDecorations(this.decoration, []);
        this.decorated.delete(editor);
        continue;
      }
      const made = this.decorated.get(editor);
      if (made && made.complete && sameMarksSource(made, entry.analysis.checkpoints, settings.problemSeverities)) {
        next.set(key, made.lines);
        continue;
      }
      const lineCount = editor.document.lineCount;
      const options: vscode.DecorationOptions[] = [];
      let complete = true;
      for (const mark of missingTurnMarks(entry.analysis, entry.transcript, settings.problemSeverities)) {
        const line = mark.line - 1;
        if (line < 0 || line >= lineCount) {
          complete = false; // the document is behind the analysis (being written)
          continue;
        }
        options.push({
          range: editor.document.lineAt(line).range,
          renderOptions: { after: { contentText: `\u2190 ${mark.text}` } },
        });
      }
      editor.setDecorations(this.decoration, options);
      const lines = options.map((option) => option.range.start.line);
      this.decorated.set(editor, {
        checkpoints: [...entry.analysis.checkpoints],
        severities: { ...settings.problemSeverities },
        complete,
        lines,
      });
      next.set(key, lines);
    }
    this.applied.clear();
    for (const [key, value] of next) this.applied.set(key, value);
  }
}

/** What an editor's marks were made from, and the lines they went on. */
interface DecoratedFrom {
  checkpoints: readonly CheckpointAnalysis[];
  severities: KindSeverities;
  /** False when some marks were left out because the document was behind the analysis. */
  complete: boolean;
  lines: number[];
}

/** True when the marks made from `made` are those of these checkpoint analyses (the same objects) and severities. */
function sameMarksSource(made: DecoratedFrom, checkpoints: readonly CheckpointAnalysis[], severities: KindSeverities): boolean {
  return (
    made.checkpoints.length === checkpoints.length &&
    made.checkpoints.every((checkpoint, index) => checkpoint === checkpoints[index]) &&
    made.severities.conversation === severities.conversation &&
    made.severities['tool-output'] === severities['tool-output']
  );
}

// Opens a transcript in a text editor and reveals and selects record lines (1-based, inclusive, as in
// the model's SourceSpan). Used by the timeline's click-through, the tree, and the navigation commands.
// A gzip-compressed transcript's records are revealed in its read-only decompressed view (documentUri).
import * as vscode from 'vscode';
import type { AnalysedTranscript } from './transcriptStore';

/** Where and how a record is shown. */
export interface RevealOptions {
  /**
   * Open it beside the active editor group (true) or beside the group in that column: in another group (the one
   * already showing the document, else a neighbour), or in a new group to the side when there is no other.
   */
  beside?: boolean | vscode.ViewColumn;
  /** Leave the keyboard focus where it is (the timeline keeps its arrow keys). */
  preserveFocus?: boolean;
  /** Open as a preview editor (replaced by the next preview) rather than a pinned tab. */
  preview?: boolean;
}

/** Opens `uri` and selects lines startLine..endLine (whole lines). */
export async function revealLines(
  uri: vscode.Uri,
  startLine: number,
  endLine: number,
  options: RevealOptions = {},
): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(uri);
  const first = clampLine(document, startLine - 1);
  const last = clampLine(document, Math.max(startLine, endLine) - 1);
  const selection = new vscode.Selection(first, 0, last, document.lineAt(last).range.end.character);
  const editor = await vscode.window.showTextDocument(document, {
    viewColumn: options.beside ? besideColumn(document.uri, options.beside === true ? undefined : options.beside) : undefined,
    preserveFocus: options.preserveFocus ?? false,
    preview: options.preview ?? false,
    selection,
  });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}

/**
 * The column beside group `column` (default: the active group): another group that already shows `uri` (so a
 * second click does not open the document once more), else a neighbour of that group, else a new group to the side.
 */
function besideColumn(uri: vscode.Uri, column?: vscode.ViewColumn): vscode.ViewColumn {
  const groups = vscode.window.tabGroups;
  const anchor = groups.all.find((group) => group.viewColumn === column) ?? groups.activeTabGroup;
  const others = groups.all.filter((group) => group !== anchor);
  const showing = others.find((group) =>
    group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()),
  );
  if (showing) return showing.viewColumn;
  const neighbour =
    others.find((group) => group.viewColumn === anchor.viewColumn + 1) ??
    others.find((group) => group.viewColumn === anchor.viewColumn - 1);
  if (neighbour) return neighbour.viewColumn;
  return anchor === groups.activeTabGroup ? vscode.ViewColumn.Beside : anchor.viewColumn + 1;
}

function clampLine(document: vscode.TextDocument, line: number): number {
  return Math.min(Math.max(line, 0), Math.max(document.lineCount - 1, 0));
}

/**
 * Reveals turn `turnIndex`'s raw record lines. A turn whose text lives in another file (externalSource)
 * is explained with a message instead. Returns the editor, or undefined when nothing was opened.
 */
export async function revealTurn(
  entry: AnalysedTranscript,
  turnIndex: number,
  options: RevealOptions = {},
): Promise<vscode.TextEditor | undefined> {
  const turn = entry.transcript.turns[turnIndex];
  if (!turn) return undefined;
  if (turn.externalSource) {
    void vscode.window.showInformationMessage(
      `Turn ${String(turn.id)}'s text is not in ${entry.name}: it lives in ${turn.externalSource}.`,
    );
    return undefined;
  }
  return revealLines(entry.documentUri, turn.span.startLine, turn.span.endLine, options);
}

// Opens a transcript in a text editor and reveals and selects record lines (1-based, inclusive, as in
// the model's SourceSpan). Used by the timeline's click-through, the tree, and the navigation commands.
// A gzip-compressed transcript's records are revealed in its read-only decompressed view (documentUri).
import * as vscode from 'vscode';
import type { AnalysedTranscript } from './transcriptStore';

/** Opens `uri` and selects lines startLine..endLine (whole lines). */
export async function revealLines(
  uri: vscode.Uri,
  startLine: number,
  endLine: number,
  options: { beside?: boolean; preserveFocus?: boolean } = {},
): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(uri);
  const first = clampLine(document, startLine - 1);
  const last = clampLine(document, Math.max(startLine, endLine) - 1);
  const selection = new vscode.Selection(first, 0, last, document.lineAt(last).range.end.character);
  const editor = await vscode.window.showTextDocument(document, {
    viewColumn: options.beside ? vscode.ViewColumn.Beside : undefined,
    preserveFocus: options.preserveFocus ?? false,
    preview: false,
    selection,
  });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
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
  options: { beside?: boolean; preserveFocus?: boolean } = {},
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

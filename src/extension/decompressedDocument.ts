// The read-only, decompressed view of a gzip-compressed transcript (`.jsonl.gz`), which VS Code cannot show as
// text. A document under our own scheme, `compaction-lens-raw:<path of the .gz>?<the .gz's file URI>`, whose
// content this provider makes by decompressing the file (node/decompressedText.ts: the reader's limits, the
// reader's line numbers). Raw records of such a transcript open here, and its diagnostics, CodeLens and hovers
// are attached here (AnalysedTranscript.documentUri). Content-provider documents are read-only: nothing is ever
// written to the transcript. The text is not cached here (the editor holds the document); it is made again
// only when the file or the decompression limits changed.
import { stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import { readDecompressedText } from '../node/decompressedText';
import { LIMIT_SETTING_NAMES, readSettings } from './settings';
import { Disposable } from './dispose';
import type { TranscriptStore } from './transcriptStore';

export const DECOMPRESSED_SCHEME = 'compaction-lens-raw';

/** The URI of the decompressed view of the gzip transcript `file` (a file: URI). */
export function decompressedUri(file: vscode.Uri): vscode.Uri {
  return vscode.Uri.from({ scheme: DECOMPRESSED_SCHEME, path: file.path, query: file.toString() });
}

/**
 * The transcript file a document URI stands for: the file itself, or the .gz behind a decompressed view.
 * Undefined for a decompressed-view URI that does not name a file on disk.
 */
export function transcriptUriOf(uri: vscode.Uri): vscode.Uri | undefined {
  if (uri.scheme !== DECOMPRESSED_SCHEME) return uri;
  try {
    const file = vscode.Uri.parse(uri.query, true);
    return file.scheme === 'file' ? file : undefined;
  } catch {
    return undefined;
  }
}

export class DecompressedDocumentProvider extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  /** For each open view, what its text was made from (size, modification time, limits). */
  private readonly madeFrom = new Map<string, string>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly store: TranscriptStore) {
    super();
    this.register(
      store.onDidChange((entry) => {
        if (entry.file.compressed) void this.refreshIfChanged(entry.documentUri);
      }),
    );
    this.register(vscode.workspace.onDidCloseTextDocument((document) => this.madeFrom.delete(document.uri.toString())));
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const file = transcriptUriOf(uri);
    if (!file) throw new Error(`${uri.toString()} does not name a transcript file on disk.`);
    // Only files the reader accepts as transcripts are decompressed here (not any path a link could name), and
    // the view comes with its analysis. A view restored after a reload analyses its transcript again.
    const entry = this.store.get(file) ?? (await this.store.load(file));
    if (!entry.file.compressed) throw new Error(`${file.fsPath} is not gzip-compressed: open it as it is.`);
    const abort = new AbortController();
    const subscription = token.onCancellationRequested(() => abort.abort());
    try {
      const signature = await this.signature(file);
      const settings = readSettings();
      const { text } = await readDecompressedText(file.fsPath, {
        maxInflatedBytes: settings.maxInflatedBytes,
        maxInflateRatio: settings.maxInflateRatio,
        limitNames: LIMIT_SETTING_NAMES,
        signal: abort.signal,
      });
      this.madeFrom.set(uri.toString(), signature);
      return text;
    } finally {
      subscription.dispose();
    }
  }

  /** Asks the editor for the view's text again when it is open and the file or the limits changed. */
  private async refreshIfChanged(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    const made = this.madeFrom.get(key);
    if (made === undefined || !vscode.workspace.textDocuments.some((document) => document.uri.toString() === key)) return;
    const file = transcriptUriOf(uri);
    const now = file && (await this.signature(file).catch(() => undefined));
    if (now !== undefined && now !== made) this.changed.fire(uri);
  }

  private async signature(file: vscode.Uri): Promise<string> {
    const info = await stat(file.fsPath);
    const settings = readSettings();
    return `${info.ino}:${info.size}:${info.mtimeMs}:${settings.maxInflatedBytes}:${settings.maxInflateRatio}`;
  }
}

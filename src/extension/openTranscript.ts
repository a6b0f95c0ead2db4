// Opening a transcript for the user: the store's load with a progress notification (cancellable) when the user
// asked for it, or the status bar's spinner when it happens on its own (a document opened, a panel restored);
// verdicts the tokens' bounds settle early are said in it while the exact counts are made.
// Failures are shown to the user when they asked, logged otherwise; the caller then gets undefined.
import * as vscode from 'vscode';
import { fileNameOf, verdictsLine } from '../core/displayText';
import type { Log } from './log';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';
import { isAbort, reportFailure } from './userErrors';

export interface OpenTranscriptOptions {
  /** The user asked for it: show a cancellable notification, and an error message on failure. */
  interactive: boolean;
}

export async function openTranscript(
  store: TranscriptStore,
  log: Log,
  uri: vscode.Uri,
  { interactive }: OpenTranscriptOptions,
): Promise<AnalysedTranscript | undefined> {
  const existing = store.get(uri);
  if (existing) return existing;
  const name = fileNameOf(uri.path);
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
        let verdicts = '';
        let step = '';
        try {
          return await store.load(uri, {
            signal: abort.signal,
            onProgress: (fraction, message) => {
              const increment = Math.max(0, fraction * 100 - reported);
              reported += increment;
              step = message;
              progress.report({ message: verdicts === '' ? message : `${verdicts} (still ${message})`, increment });
            },
            // The verdicts were settled before the analysis is done: say them while the rest goes on.
            onVerdict: (settled) => {
              verdicts = verdictsLine(settled);
              if (verdicts !== '') progress.report({ message: step === '' ? verdicts : `${verdicts} (still ${step})` });
            },
          });
        } finally {
          subscription.dispose();
        }
      },
    );
  } catch (error) {
    if (isAbort(error)) return undefined;
    if (interactive) reportFailure(log, uri.fsPath, error);
    else log.info(`not analysed: ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

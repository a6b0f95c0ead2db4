// Turns failures into messages a user can act on: what failed, where, what to do. Never a stack trace
// (those go to the output channel).
import * as vscode from 'vscode';
import { UnusableTranscriptError } from '../node/transcriptFile';
import type { Log } from './log';

/** True for the error TranscriptFile throws when a read is cancelled. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** One line describing why `path` could not be analysed. */
export function describeFailure(path: string, error: unknown): string {
  if (error instanceof UnusableTranscriptError) return error.message;
  const reason = error instanceof Error ? error.message : String(error);
  return `Compaction Lens could not analyse ${path}: ${reason}. Details are in the "Compaction Lens" output.`;
}

/** Shows the failure to the user (a warning for unusable input, an error otherwise) and logs it. */
export function reportFailure(log: Log, path: string, error: unknown): void {
  log.error(`analysing ${path}`, error);
  const message = describeFailure(path, error);
  if (error instanceof UnusableTranscriptError && error.details.length > 0) {
    // The formats tried and what each needed: too long for a notification, kept in the output.
    log.info(`${message}\n${error.details.map((line) => `  - ${line}`).join('\n')}`);
    void vscode.window.showWarningMessage(message, 'Show Output').then((choice) => choice && log.show());
  } else if (error instanceof UnusableTranscriptError) void vscode.window.showWarningMessage(message);
  else void vscode.window.showErrorMessage(message, 'Show Output').then((choice) => choice && log.show());
}

// How a command whose work grows with a transcript's turns (Copy Dropped Turns for the Agent, Export Corrected
// Checkpoint) shows that work: in the status bar while it is short, and from LONG_WORK_TURNS turns, where it
// takes half a second or more, in a notification with its progress and a Cancel button. Cancel aborts the work's
// signal; the work then rejects with an AbortError (node/inSlices.ts) and the command resolves as cancelled.
import * as vscode from 'vscode';
import { isAbort } from './userErrors';

/**
 * From this many turns the work takes half a second or more, so it shows in a notification with Cancel: on the
 * generated 100k-turn files, the copy's 88,200 turns take 1.1–2.6 s and the export's 100,000 1.4–2.3 s in a real
 * VS Code (docs/performance-history.md), 12–30 µs a turn. Below it a notification would only flash by.
 */
export const LONG_WORK_TURNS = 25_000;

/** One step of progress, as vscode.Progress takes it. */
export interface ProgressStep {
  message?: string;
  increment?: number;
}

/** vscode.window.withProgress, or a caller's (an extension-host test's, which presses Cancel as the button would). */
export type ProgressRunner = <T>(
  options: vscode.ProgressOptions,
  task: (progress: vscode.Progress<ProgressStep>, token: vscode.CancellationToken) => Thenable<T>,
) => Thenable<T>;

/**
 * What the work reports: what it is doing, and where it stands (0–100, undefined while that cannot be told). A
 * message given as a function is made only when the step is shown: a loop that reports each turn then formats
 * about a hundred messages, not one a turn.
 */
export type ReportWork = (message: string | (() => string), percent?: number) => void;

/**
 * Runs `work` under a progress of `turns` turns' size: the status bar's, titled `titles.short`, below
 * LONG_WORK_TURNS; a cancellable notification titled `titles.long` from it. Resolves with what `work` resolves
 * with, or undefined when it rejects with an AbortError (Cancel was pressed). Work that ends as Cancel is pressed
 * resolves with its result: a file written stays written, and is said to be.
 */
export async function withWorkProgress<T>(
  turns: number,
  titles: { short: string; long: string },
  work: (report: ReportWork, signal: AbortSignal) => Promise<T>,
  runner: ProgressRunner = vscode.window.withProgress,
): Promise<T | undefined> {
  const options: vscode.ProgressOptions =
    turns >= LONG_WORK_TURNS
      ? { location: vscode.ProgressLocation.Notification, title: titles.long, cancellable: true }
      : { location: vscode.ProgressLocation.Window, title: titles.short };
  return runner(options, async (progress, token) => {
    const abort = new AbortController();
    const subscription = token.onCancellationRequested(() => abort.abort());
    // The bar moves in whole hundredths: a step with a percent is reported only when it moves the bar, so a loop
    // that reports each turn reports about a hundred times. A step without one is reported when its message is new.
    let shown = 0;
    let said = '';
    const report: ReportWork = (message, percent) => {
      const whole = percent === undefined ? undefined : Math.min(100, Math.floor(percent));
      if (whole !== undefined && whole <= shown) return;
      const text = typeof message === 'string' ? message : message();
      if (whole !== undefined) {
        progress.report({ message: text, increment: whole - shown });
        shown = whole;
      } else if (text !== said) progress.report({ message: text });
      said = text;
    };
    try {
      return await work(report, abort.signal);
    } catch (error) {
      if (isAbort(error)) return undefined;
      throw error;
    } finally {
      subscription.dispose();
    }
  });
}

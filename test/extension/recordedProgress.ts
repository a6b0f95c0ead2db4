// A progress runner for the extension-host tests of commands that take one (their prompts' `withProgress`): it
// shows the progress with VS Code's own vscode.window.withProgress, records the options and every step reported,
// and presses Cancel as the notification's button would (the task's token cancelled) once a step matches.
import * as vscode from 'vscode';
import type { ProgressRunner, ProgressStep } from '../../src/extension/longWork';

export class RecordedProgress {
  /** Each progress shown, with what it reported. */
  readonly shown: { options: vscode.ProgressOptions; reports: ProgressStep[] }[] = [];

  /** `cancelAt`: press Cancel once a step this is true of is reported. */
  constructor(private readonly cancelAt?: (step: ProgressStep) => boolean) {}

  readonly run: ProgressRunner = (options, task) => {
    const shown = { options, reports: [] as ProgressStep[] };
    this.shown.push(shown);
    return vscode.window.withProgress(options, (progress, token) => {
      const cancel = new vscode.CancellationTokenSource();
      token.onCancellationRequested(() => cancel.cancel());
      const report = (step: ProgressStep) => {
        shown.reports.push(step);
        progress.report(step);
        if (this.cancelAt?.(step)) cancel.cancel();
      };
      return task({ report }, cancel.token);
    });
  };
}

// The modal question a command asks before it replaces a file the user chose to write (Export Corrected
// Checkpoint's output, Copy Dropped Turns for the Agent's "Save As…"): "NAME already exists. Replace it?"
import * as vscode from 'vscode';
import { fileNameOf } from '../core/displayText';

/** True when the user chose "Replace"; `detail` says what the file's content becomes. */
export async function confirmReplace(uri: vscode.Uri, detail: string): Promise<boolean> {
  const replace = 'Replace';
  const choice = await vscode.window.showWarningMessage(
    `${fileNameOf(uri.fsPath)} already exists. Replace it?`,
    { modal: true, detail },
    replace,
  );
  return choice === replace;
}

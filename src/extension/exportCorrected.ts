// "Compaction Lens: Export Corrected Checkpoint" (compactionLens.exportCorrectedCheckpoint): on the transcript
// of the menu, the active timeline or the active editor, asks where to save (a save dialog starting at the
// default name beside the transcript, docs/corrected-checkpoint.md), asks in a modal dialog before replacing an
// existing file, writes atomically (node/correctedExport.ts; never the transcript), and says what it wrote with
// an "Open" button. From LONG_WORK_TURNS turns the export shows in a notification with Cancel, which stops it
// with nothing written. The three dialogs (and the progress) are the command's `ExportPrompts`: the window's by
// default, a caller's (an extension-host test) when passed as the command's second argument; JSON arguments (a
// command: link) cannot carry them. The command resolves with what happened, for tests and other callers.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { describeCorrection, exportKindFor } from '../core/correctedCheckpoint';
import { fileNameOf, formatBytes } from '../core/displayText';
import type { CorrectedExportKind } from '../core/model';
import { isSameFile } from '../node/atomicWrite';
import { CorrectedExportError, defaultExportPath, exportCorrectedCheckpoint } from '../node/correctedExport';
import { activeEditorUri } from './activeTranscript';
import { transcriptUriOf } from './decompressedDocument';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import type { TimelinePanels } from './timelinePanel';
import type { TranscriptStore } from './transcriptStore';
import { capitalised, noLinks } from './notificationText';
import { type ProgressRunner, withWorkProgress } from './longWork';
import { confirmReplace } from './replaceDialog';

export const EXPORT_CORRECTED_CHECKPOINT = 'compactionLens.exportCorrectedCheckpoint';

interface Services {
  store: TranscriptStore;
  panels: TimelinePanels;
  log: Log;
}

/** The dialogs the command shows. */
export interface ExportPrompts {
  /** Where to save; undefined when cancelled. */
  chooseOutput(options: vscode.SaveDialogOptions): Thenable<vscode.Uri | undefined>;
  /** The chosen file exists: replace it? (modal) */
  confirmOverwrite(uri: vscode.Uri): Thenable<boolean>;
  /** Says what was written, with buttons; resolves with the button pressed (a notification: when dismissed). */
  announce(message: string, buttons: string[]): Thenable<string | undefined>;
  /** Shows the export while it runs: vscode.window.withProgress when not given. */
  withProgress?: ProgressRunner;
}

/** What the command did. */
export type ExportCorrectedResult =
  | { kind: 'written'; transcript: string; output: string; exportKind: CorrectedExportKind; message: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; message: string };

const OPEN = 'Open';

const windowPrompts: ExportPrompts = {
  chooseOutput: (options) => vscode.window.showSaveDialog(options),
  confirmOverwrite: (uri) =>
    confirmReplace(uri, 'The corrected checkpoints will replace its content. The transcript itself is never written.'),
  announce: (message, buttons) => vscode.window.showInformationMessage(message, ...buttons),
};

function isExportPrompts(value: unknown): value is ExportPrompts {
  if (!value || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return ['chooseOutput', 'confirmOverwrite', 'announce'].every((name) => typeof candidate[name] === 'function');
}

export function registerExportCorrectedCheckpoint(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand(
    EXPORT_CORRECTED_CHECKPOINT,
    async (arg?: unknown, prompts?: unknown): Promise<ExportCorrectedResult> => {
      try {
        return await exportCorrected(services, arg, isExportPrompts(prompts) ? prompts : windowPrompts);
      } catch (error) {
        services.log.error('Export Corrected Checkpoint', error);
        const message = `Compaction Lens: Export Corrected Checkpoint failed: ${error instanceof Error ? error.message : String(error)}. Details are in the "Compaction Lens" output.`;
        void vscode.window.showErrorMessage(message);
        return { kind: 'failed', message };
      }
    },
  );
}

/** The transcript to export: the menu's resource, else the active timeline's, else the active editor's file. */
function targetUri(services: Services, arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return transcriptUriOf(arg);
  const timeline = services.panels.active();
  if (timeline) return timeline.uri;
  const active = activeEditorUri();
  return active?.scheme === 'file' ? active : undefined;
}

async function exportCorrected(services: Services, arg: unknown, prompts: ExportPrompts): Promise<ExportCorrectedResult> {
  const uri = targetUri(services, arg);
  if (!uri || uri.scheme !== 'file') {
    const message = 'Open a transcript file or its Compaction Lens timeline first.';
    void vscode.window.showInformationMessage(message);
    return { kind: 'failed', message };
  }
  const entry = services.store.get(uri) ?? (await openTranscript(services.store, services.log, uri, { interactive: true }));
  if (!entry) return { kind: 'failed', message: `${fileNameOf(uri.fsPath)} could not be analysed.` };
  const { analysis } = entry;
  const transcript = entry.uri.fsPath;
  const canonical = analysis.format === 'canonical';
  const chosen = await prompts.chooseOutput({
    title: `Export Corrected Checkpoint of ${entry.name}`,
    saveLabel: 'Export',
    defaultUri: vscode.Uri.file(defaultExportPath(transcript, analysis.format)),
    filters: canonical ? { 'Corrected canonical transcript': ['jsonl'], 'Sidecar document': ['json'] } : { 'Sidecar document': ['json'] },
  });
  if (!chosen) return { kind: 'cancelled' };
  if (chosen.scheme !== 'file')
    return fail(`Compaction Lens writes corrected checkpoints to local files only, not ${chosen.scheme}: URIs.`);
  const decided = exportKindFor(analysis.format, chosen.fsPath);
  if ('error' in decided) return fail(`Compaction Lens: ${capitalised(decided.error)}`);
  if (await isSameFile(chosen.fsPath, transcript)) {
    return fail(
      `Compaction Lens: ${chosen.fsPath} is the transcript itself: Compaction Lens never writes to a transcript. Choose another file.`,
    );
  }
  let overwrite = false;
  if (existsSync(chosen.fsPath)) {
    overwrite = await prompts.confirmOverwrite(chosen);
    if (!overwrite) return { kind: 'cancelled' };
  }
  let written;
  try {
    // From LONG_WORK_TURNS turns in a notification with Cancel: a 100,000-turn transcript's export takes seconds.
    const title = `Compaction Lens: exporting the corrected checkpoints of ${entry.name}`;
    const outputName = fileNameOf(chosen.fsPath);
    written = await withWorkProgress(
      entry.transcript.turns.length,
      { short: title, long: title },
      (report, signal) =>
        exportCorrectedCheckpoint(transcript, analysis, {
          outputPath: chosen.fsPath,
          overwrite,
          signal,
          onProgress: (progress) =>
            report(
              progress.step === 'correcting' ? 'working out the corrections' : `writing ${outputName}: ${formatBytes(progress.bytes)}`,
            ),
        }),
      prompts.withProgress?.bind(prompts),
    );
  } catch (error) {
    if (error instanceof CorrectedExportError) return fail(`Compaction Lens: ${capitalised(error.message)}`);
    throw error;
  }
  if (!written) return { kind: 'cancelled' };
  const checkpoints = written.document.checkpoints;
  const what = checkpoints.length === 0 ? 'no compaction checkpoint, nothing to correct' : checkpoints.map(describeCorrection).join('; ');
  const message = noLinks(`Exported the corrected checkpoints of ${entry.name} to ${fileNameOf(written.outputPath)}: ${what}.`);
  const output = vscode.Uri.file(written.outputPath);
  // Not awaited: a notification's promise settles only when the user dismisses it.
  void Promise.resolve(prompts.announce(message, [OPEN])).then((choice) => {
    if (choice === OPEN) void vscode.commands.executeCommand('vscode.open', output);
  });
  return { kind: 'written', transcript, output: written.outputPath, exportKind: written.kind, message };
}

function fail(message: string): ExportCorrectedResult {
  void vscode.window.showErrorMessage(message);
  return { kind: 'failed', message };
}

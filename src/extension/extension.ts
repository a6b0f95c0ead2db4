// Entry point of the extension host: activate() registers the commands, the timeline panels and their
// serializer, diagnostics, the end-of-line marks, CodeLens, hover, the checkpoints tree, the status bar item and the read-only
// decompressed view of .jsonl.gz transcripts (decompressedDocument.ts). It analyses
// nothing and loads no tokenizer: work starts when a command, the tree or a restored panel asks for it.
import * as vscode from 'vscode';
import { ActiveTranscript } from './activeTranscript';
import { CHECKPOINT_VIEW_ID, CheckpointTreeProvider } from './checkpointTree';
import { CheckpointLensProvider } from './checkpointLens';
import { registerCommands } from './commands';
import { registerCopyDroppedTurns } from './copyDroppedTurns';
import { DECOMPRESSED_SCHEME, DecompressedDocumentProvider } from './decompressedDocument';
import { registerExportCorrectedCheckpoint } from './exportCorrected';
import { TranscriptDiagnostics } from './diagnostics';
import { Log } from './log';
import { MissingTurnMarks } from './missingTurnMarks';
import { TranscriptStatusBar } from './statusBar';
import { TimelinePanels } from './timelinePanel';
import { LiveTranscripts } from './liveTranscripts';
import { TranscriptStore } from './transcriptStore';
import { TurnHoverProvider } from './turnHover';
import { registerWhereDidThisGo } from './whereDidThisGo';

/** What activate() returns: the live parts, so extension-host tests can observe them. */
export interface CompactionLensApi {
  store: TranscriptStore;
  panels: TimelinePanels;
  diagnostics: TranscriptDiagnostics;
  tree: CheckpointTreeProvider;
  statusBar: TranscriptStatusBar;
  marks: MissingTurnMarks;
}

export function activate(context: vscode.ExtensionContext): CompactionLensApi {
  const log = new Log();
  const store = new TranscriptStore(log);
  const live = new LiveTranscripts(store, log);
  const panels = new TimelinePanels({ extensionUri: context.extensionUri, store, live, log });
  const diagnostics = new TranscriptDiagnostics(store);
  const tree = new CheckpointTreeProvider(store);
  const active = new ActiveTranscript(store, log);
  panels.followActive(active.onDidChange);
  const statusBar = new TranscriptStatusBar(active, store);
  const marks = new MissingTurnMarks(store);
  const lens = new CheckpointLensProvider(store);
  const decompressed = new DecompressedDocumentProvider(store);
  // Transcript files, and the decompressed views of compressed ones.
  const files: vscode.DocumentSelector = [{ scheme: 'file' }, { scheme: DECOMPRESSED_SCHEME }];
  context.subscriptions.push(
    log,
    store,
    live,
    panels,
    diagnostics,
    tree,
    vscode.window.createTreeView(CHECKPOINT_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true }),
    active,
    statusBar,
    marks,
    lens,
    decompressed,
    vscode.workspace.registerTextDocumentContentProvider(DECOMPRESSED_SCHEME, decompressed),
    vscode.languages.registerCodeLensProvider(files, lens),
    vscode.languages.registerHoverProvider(files, new TurnHoverProvider(store)),
    ...registerCommands({ store, panels, log }),
    registerExportCorrectedCheckpoint({ store, panels, log }),
    registerCopyDroppedTurns({ store, panels, log }),
    registerWhereDidThisGo({ store, panels, log }),
  );
  return { store, panels, diagnostics, tree, statusBar, marks };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}

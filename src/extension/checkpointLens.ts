// A CodeLens above each checkpoint record of an analysed transcript:
// "S1: 380 covered · 40 claimed-missing · fail-closed — open timeline". For a .jsonl.gz, in its decompressed view.
import * as vscode from 'vscode';
import { describeCheckpoint } from '../view/timelineData';
import { Disposable } from './dispose';
import type { TranscriptStore } from './transcriptStore';

export class CheckpointLensProvider extends Disposable implements vscode.CodeLensProvider {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly store: TranscriptStore) {
    super();
    this.register(store.onDidChange(() => this.changed.fire()));
    this.register(store.onDidRemove(() => this.changed.fire()));
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const entry = this.store.forDocument(document.uri);
    if (!entry) return [];
    return entry.analysis.checkpoints.map((checkpoint, checkpointIndex) => {
      const line = Math.min(Math.max(checkpoint.line - 1, 0), Math.max(document.lineCount - 1, 0));
      return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
        title: `${checkpoint.summaryId}: ${describeCheckpoint(checkpoint)} — open timeline`,
        tooltip: checkpoint.reasons.join('\n'),
        command: 'compactionLens.openTimeline',
        arguments: [entry.uri, { checkpointIndex }],
      });
    });
  }
}

// Status bar item for the transcript in the active editor: the worst verdict across its checkpoints and the
// number of claimed-missing turns. Clicking it opens the timeline.
import * as vscode from 'vscode';
import type { ActiveTranscript } from './activeTranscript';
import { worstVerdict } from './timelineData';
import type { AnalysedTranscript } from './transcriptStore';

const ICONS = { reversible: '$(pass)', conditional: '$(warning)', 'fail-closed': '$(error)' } as const;

export class TranscriptStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('compactionLens.status', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;

  constructor(active: ActiveTranscript) {
    this.item.name = 'Compaction Lens';
    this.subscription = active.onDidChange((entry) => this.show(entry));
    this.show(active.current);
  }

  /** The text shown now ('' when hidden), for tests and logs. */
  get text(): string {
    return this.visible ? this.item.text : '';
  }

  private visible = false;

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }

  private show(entry: AnalysedTranscript | undefined): void {
    if (!entry) {
      this.item.hide();
      this.visible = false;
      return;
    }
    const { analysis } = entry;
    const verdict = worstVerdict(analysis);
    const missing = analysis.checkpoints.reduce((sum, checkpoint) => sum + checkpoint.counts['claimed-missing'], 0);
    if (verdict === undefined) {
      this.item.text = '$(history) no compactions';
      this.item.backgroundColor = undefined;
    } else {
      this.item.text = `${ICONS[verdict]} ${verdict} · ${missing} claimed-missing`;
      this.item.backgroundColor =
        verdict === 'fail-closed'
          ? new vscode.ThemeColor('statusBarItem.errorBackground')
          : verdict === 'conditional'
            ? new vscode.ThemeColor('statusBarItem.warningBackground')
            : undefined;
    }
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(`Compaction Lens: ${entry.name}\n\n`);
    for (const checkpoint of analysis.checkpoints) {
      tooltip.appendText(
        `${checkpoint.summaryId} (line ${checkpoint.line}): ${checkpoint.verdict}, ` +
          `${checkpoint.counts.covered} covered, ${checkpoint.counts['claimed-missing']} claimed-missing\n\n`,
      );
    }
    tooltip.appendMarkdown('Click to open the timeline.');
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: `Compaction Lens: ${this.item.text.replace(/\$\([^)]*\)\s*/g, '')}` };
    this.item.command = { command: 'compactionLens.openTimeline', title: 'Open Timeline', arguments: [entry.uri] };
    this.item.show();
    this.visible = true;
  }
}

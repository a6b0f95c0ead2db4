// Status bar item for the transcript in the active editor: the worst verdict across its checkpoints, the
// number of claimed-missing turns and of checkpoints whose coverage could not be checked; the tooltip has
// each checkpoint's turns per status. Clicking it opens the timeline.
import * as vscode from 'vscode';
import type { ActiveTranscript } from './activeTranscript';
import { TURN_STATUSES } from '../core/model';
import { statusName } from '../statusWords';
import { whyUnverifiable, worstVerdict } from '../view/timelineData';
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
    const uncheckable = analysis.checkpoints.filter((checkpoint) => whyUnverifiable(checkpoint) !== undefined).length;
    if (verdict === undefined) {
      this.item.text = '$(history) no compactions';
      this.item.backgroundColor = undefined;
    } else {
      this.item.text = `${ICONS[verdict]} ${verdict} · ${missing} claimed-missing`;
      if (uncheckable > 0) this.item.text += ` · ${uncheckable} not checkable`;
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
      const counts = TURN_STATUSES.filter((status) => checkpoint.counts[status] > 0 || status === 'covered').map(
        (status) => `${checkpoint.counts[status]} ${statusName(status)}`,
      );
      const why = whyUnverifiable(checkpoint);
      tooltip.appendText(
        `${checkpoint.summaryId} (line ${checkpoint.line}): ${checkpoint.verdict}, ${counts.join(', ')}` +
          `${why === undefined ? '' : ` (coverage could not be checked: ${why})`}\n\n`,
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

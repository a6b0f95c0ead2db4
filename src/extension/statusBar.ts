// Status bar item for the transcript in the active editor. It reports one checkpoint and says which: the worst
// of the file (worst verdict, then most claimed-missing turns), by its id and, when the file has several, its
// position ("$(error) S2 (2 of 3): fail-closed · 40 claimed-missing"); the tooltip says it is the worst and lists
// every checkpoint. While a webview (the timeline) has focus there is no active editor: the item keeps showing
// the last transcript's result instead of disappearing. Clicking it opens the timeline.
import * as vscode from 'vscode';
import { Disposable } from './dispose';
import type { ActiveTranscript } from './activeTranscript';
import { TURN_STATUSES } from '../core/model';
import { statusName } from '../statusWords';
import { whyUnverifiable } from '../view/timelineData';
import { checkpointName, worstCheckpoint } from '../view/problemsModel';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';

const ICONS = { reversible: '$(pass)', conditional: '$(warning)', 'fail-closed': '$(error)' } as const;

/** An id from the transcript, so that "$(…)" in it is not drawn as an icon. */
function iconless(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(');
}

/** True while the active tab is a webview (the timeline, or another extension's): no editor is active then. */
function webviewIsActive(): boolean {
  return vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputWebview;
}

export class TranscriptStatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('compactionLens.status', vscode.StatusBarAlignment.Right, 100));
  /** The transcript shown, kept while a webview has focus. */
  private shown: AnalysedTranscript | undefined;
  private visible = false;

  constructor(active: ActiveTranscript, store?: TranscriptStore) {
    super();
    this.item.name = 'Compaction Lens';
    this.register(active.onDidChange((entry) => this.follow(entry)));
    if (store) {
      // The kept transcript is re-analysed, or dropped, while the webview has focus.
      this.register(
        store.onDidChange((entry) => {
          if (entry === this.shown || entry.uri.toString() === this.shown?.uri.toString()) this.show(entry);
        }),
      );
      this.register(
        store.onDidRemove((uri) => {
          if (uri.toString() === this.shown?.uri.toString()) this.show(undefined);
        }),
      );
    }
    this.show(active.current);
  }

  /** The text shown now ('' when hidden), for tests and logs. */
  get text(): string {
    return this.visible ? this.item.text : '';
  }

  /** The tooltip shown now, as plain text ('' when hidden), for tests. */
  get tooltip(): string {
    if (!this.visible) return '';
    const tooltip = this.item.tooltip;
    if (typeof tooltip === 'string') return tooltip;
    // appendText escaped it as Markdown: undo that.
    return (tooltip?.value ?? '')
      .replace(/&nbsp;/g, ' ')
      .replace(/\\(.)/g, '$1')
      .replace(/\n{2,}/g, '\n');
  }

  private follow(entry: AnalysedTranscript | undefined): void {
    if (!entry && this.shown && webviewIsActive()) return; // the timeline has focus: keep the last result
    this.show(entry);
  }

  private show(entry: AnalysedTranscript | undefined): void {
    this.shown = entry;
    if (!entry) {
      this.item.hide();
      this.visible = false;
      return;
    }
    const { checkpoints } = entry.analysis;
    const worst = worstCheckpoint(checkpoints);
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(`Compaction Lens: ${entry.name}\n\n`);
    if (!worst) {
      this.item.text = '$(history) no compactions';
      this.item.backgroundColor = undefined;
      tooltip.appendText('No compaction in this transcript.\n\n');
    } else {
      const position = checkpoints.indexOf(worst) + 1;
      const name = iconless(checkpointName(worst));
      const label = checkpoints.length > 1 ? `${name} (${position} of ${checkpoints.length})` : name;
      this.item.text = `${ICONS[worst.verdict]} ${label}: ${worst.verdict} · ${worst.counts['claimed-missing']} claimed-missing`;
      if (whyUnverifiable(worst) !== undefined) this.item.text += ' · not checkable';
      this.item.backgroundColor =
        worst.verdict === 'fail-closed'
          ? new vscode.ThemeColor('statusBarItem.errorBackground')
          : worst.verdict === 'conditional'
            ? new vscode.ThemeColor('statusBarItem.warningBackground')
            : undefined;
      tooltip.appendText(
        checkpoints.length > 1
          ? `Shows the worst of this file's ${checkpoints.length} checkpoints: ${name}, checkpoint ${position} of ${checkpoints.length} (line ${worst.line}).\n\n`
          : `Shows this file's only checkpoint: ${name} (line ${worst.line}).\n\n`,
      );
      checkpoints.forEach((checkpoint, index) => {
        const counts = TURN_STATUSES.filter((status) => checkpoint.counts[status] > 0 || status === 'covered').map(
          (status) => `${checkpoint.counts[status]} ${statusName(status)}`,
        );
        const why = whyUnverifiable(checkpoint);
        tooltip.appendText(
          `${index + 1}. ${checkpointName(checkpoint)} (line ${checkpoint.line}): ${checkpoint.verdict}, ${counts.join(', ')}` +
            `${why === undefined ? '' : ` (coverage could not be checked: ${why})`}\n\n`,
        );
      });
    }
    tooltip.appendMarkdown('Click to open the timeline.');
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: `Compaction Lens: ${this.item.text.replace(/\$\([^)]*\)\s*/g, '')}` };
    this.item.command = { command: 'compactionLens.openTimeline', title: 'Open Timeline', arguments: [entry.uri] };
    this.item.show();
    this.visible = true;
  }
}

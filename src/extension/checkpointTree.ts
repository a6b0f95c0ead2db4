// The "Compaction Checkpoints" tree (explorer view compactionLens.checkpoints): analysed transcript files ->
// their checkpoints (verdict icon, turns per status, why coverage could not be checked when it could not) ->
// ranges of claimed-missing turns, the only turns listed as problems. Selecting an item reveals it. Made from
// the files' digests (TranscriptStore.digests), so it lists every analysed file, also those the store keeps no
// full entry of; revealing an item loads its file again when needed (commands.ts).
import * as vscode from 'vscode';
import { fullTurnId } from '../core/displayText';
import { TURN_STATUSES, type CheckpointDigest, type Verdict } from '../core/model';
import { statusName } from '../statusWords';
import { describeCheckpoint, describeRange } from '../view/timelineData';
import { Disposable } from './dispose';
import type { TranscriptStore } from './transcriptStore';

export const CHECKPOINT_VIEW_ID = 'compactionLens.checkpoints';
/** Internal command the tree items run: reveal a checkpoint or a range (in the timeline if open). */
export const REVEAL_COMMAND = 'compactionLens.revealItem';

export type CheckpointTreeNode =
  | { kind: 'file'; uri: vscode.Uri }
  | { kind: 'checkpoint'; uri: vscode.Uri; checkpointIndex: number }
  | { kind: 'range'; uri: vscode.Uri; checkpointIndex: number; rangeIndex: number };

/** What a tree item asks to reveal. */
export interface RevealTarget {
  uri: string;
  checkpointIndex?: number;
  rangeIndex?: number;
}

const VERDICT_ICONS: Record<Verdict, { icon: string; color: string }> = {
  reversible: { icon: 'pass', color: 'compactionLens.verdict.reversible' },
  conditional: { icon: 'warning', color: 'compactionLens.verdict.conditional' },
  'fail-closed': { icon: 'error', color: 'compactionLens.verdict.failClosed' },
};

export function verdictIcon(verdict: Verdict): vscode.ThemeIcon {
  const { icon, color } = VERDICT_ICONS[verdict];
  return new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
}

export class CheckpointTreeProvider extends Disposable implements vscode.TreeDataProvider<CheckpointTreeNode> {
  private readonly changed = this.register(new vscode.EventEmitter<CheckpointTreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly store: TranscriptStore) {
    super();
    this.register(store.onDidChange(() => this.changed.fire(undefined)));
    this.register(store.onDidRemove(() => this.changed.fire(undefined)));
  }

  getChildren(node?: CheckpointTreeNode): CheckpointTreeNode[] {
    if (!node) return this.store.digests().map((entry) => ({ kind: 'file', uri: entry.uri }));
    const entry = this.store.digest(node.uri);
    if (!entry) return [];
    if (node.kind === 'file') {
      return entry.analysis.checkpoints.map((_, checkpointIndex) => ({ kind: 'checkpoint', uri: node.uri, checkpointIndex }));
    }
    if (node.kind === 'checkpoint') {
      const checkpoint = entry.analysis.checkpoints[node.checkpointIndex];
      return (checkpoint?.claimedMissingRanges ?? []).map((_, rangeIndex) => ({
        kind: 'range',
        uri: node.uri,
        checkpointIndex: node.checkpointIndex,
        rangeIndex,
      }));
    }
    return [];
  }

  getParent(node: CheckpointTreeNode): CheckpointTreeNode | undefined {
    if (node.kind === 'file') return undefined;
    if (node.kind === 'checkpoint') return { kind: 'file', uri: node.uri };
    return { kind: 'checkpoint', uri: node.uri, checkpointIndex: node.checkpointIndex };
  }

  getTreeItem(node: CheckpointTreeNode): vscode.TreeItem {
    const entry = this.store.digest(node.uri);
    const key = node.uri.toString();
    if (node.kind === 'file' || !entry) {
      const item = new vscode.TreeItem(node.uri, vscode.TreeItemCollapsibleState.Expanded);
      item.id = key;
      item.contextValue = 'transcript';
      const count = entry?.analysis.checkpoints.length ?? 0;
      item.description = `${count} checkpoint${count === 1 ? '' : 's'} · ${entry?.analysis.turnCount ?? 0} turns`;
      item.tooltip = node.uri.fsPath;
      item.iconPath = vscode.ThemeIcon.File;
      if (count === 0) item.collapsibleState = vscode.TreeItemCollapsibleState.None;
      // A .jsonl.gz opens in its decompressed view.
      item.command = { command: 'vscode.open', title: 'Open Transcript', arguments: [entry?.documentUri ?? node.uri] };
      return item;
    }
    const checkpoint = entry.analysis.checkpoints[node.checkpointIndex];
    // A node asked for after the file changed under it (its checkpoint or range is gone): the tree's refresh follows.
    if (!checkpoint || (node.kind === 'range' && !checkpoint.claimedMissingRanges[node.rangeIndex])) return goneItem();
    if (node.kind === 'checkpoint') {
      const hasRanges = checkpoint.claimedMissingRanges.length > 0;
      const item = new vscode.TreeItem(
        checkpoint.summaryId,
        hasRanges ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `${key}#${node.checkpointIndex}`;
      item.contextValue = 'checkpoint';
      item.description = describeCheckpoint(checkpoint);
      item.iconPath = verdictIcon(checkpoint.verdict);
      item.tooltip = checkpointTooltip(checkpoint);
      item.command = this.revealCommand({ uri: key, checkpointIndex: node.checkpointIndex });
      return item;
    }
    const range = checkpoint.claimedMissingRanges[node.rangeIndex];
    const item = new vscode.TreeItem(describeRange(range.from, range.to, range.count), vscode.TreeItemCollapsibleState.None);
    item.id = `${key}#${node.checkpointIndex}#${node.rangeIndex}`;
    item.contextValue = 'claimedMissingRange';
    item.description = `${range.count} claimed-missing`;
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('compactionLens.turn.claimedMissing'));
    const ids = range.count === 1 ? fullTurnId(range.from) : `${fullTurnId(range.from)} to ${fullTurnId(range.to)}`;
    const at = range.startLine > 0 ? `, lines ${range.startLine}–${range.endLine}` : '';
    item.tooltip = `Claimed by ${checkpoint.summaryId} but not covered by its summary (turn ids ${ids}${at})`;
    item.command = this.revealCommand({ uri: key, checkpointIndex: node.checkpointIndex, rangeIndex: node.rangeIndex });
    return item;
  }

  private revealCommand(target: RevealTarget): vscode.Command {
    return { command: REVEAL_COMMAND, title: 'Reveal', arguments: [target] };
  }
}

/** Verdict and reasons, turns per status in plain words, and why coverage could not be checked if it could not. */
function checkpointTooltip(checkpoint: CheckpointDigest): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(`${checkpoint.summaryId} (line ${checkpoint.line}): ${checkpoint.verdict}\n\n${checkpoint.reasons.join('\n')}`);
  const counts = TURN_STATUSES.filter((status) => checkpoint.counts[status] > 0).map(
    (status) => `${checkpoint.counts[status]} ${statusName(status)}`,
  );
  if (counts.length > 0) tooltip.appendText(`\n\nTurns: ${counts.join(', ')}`);
  const why = checkpoint.whyUnverifiable;
  if (why !== undefined) tooltip.appendText(`\n\nCoverage could not be checked: ${why}`);
  return tooltip;
}

/** What a node whose checkpoint or range no longer exists shows until the tree is refreshed. */
function goneItem(): vscode.TreeItem {
  const item = new vscode.TreeItem('(no longer in the transcript)', vscode.TreeItemCollapsibleState.None);
  item.description = 'the file changed';
  return item;
}
